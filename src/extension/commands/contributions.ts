/**
 * What package.json contributes for each command: its title, icon, and every menu it shows
 * in with the "when" clause that decides it. This table is the one place those are written:
 * `npx tsx scripts/command-contributions.ts --write` puts them into package.json, and a test
 * fails when package.json drifts from it. Commands register under these ids only (CommandId).
 * No vscode import: the script and the tests read it outside the editor.
 */

export interface MenuPlacement {
  /** The menu, as package.json names it (view/title, view/item/context, commandPalette, …). */
  menu: string;
  when?: string;
  group?: string;
}

export interface CommandContribution {
  title: string;
  /** The palette category, when not COMMAND_CATEGORY (one category for every command: the palette groups them under it). */
  category?: string;
  icon?: string;
  menus?: readonly MenuPlacement[];
}

export const COMMAND_CATEGORY = "RL Env";

export const COMMAND_CONTRIBUTIONS = {
  "rlenv.openTrajectory": { title: "Open Trajectory Viewer" },
  "rlenv.openDashboard": { title: "Open Run Dashboard" },
  "rlenv.openAuditReport": {
    title: "Open Audit Report",
    menus: [{ menu: "explorer/context", when: "resourceFilename == audit.json", group: "rlenv@2" }],
  },
  "rlenv.addRunner": {
    title: "Add Runner…",
    icon: "$(add)",
    menus: [{ menu: "view/title", when: "view == rlenv.runners", group: "navigation@1" }],
  },
  "rlenv.removeRunner": {
    title: "Remove Runner",
    icon: "$(trash)",
    menus: [{ menu: "view/item/context", when: "view == rlenv.runners && viewItem == runner", group: "2_manage@1" }],
  },
  "rlenv.refreshRunners": {
    title: "Refresh Runners",
    icon: "$(refresh)",
    menus: [{ menu: "view/title", when: "view == rlenv.runners", group: "navigation@2" }],
  },
  "rlenv.submitToRunner": {
    title: "Submit to Runner…",
    icon: "$(cloud-upload)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.environments && viewItem == environment", group: "1_run@4" },
      { menu: "explorer/context", when: "resourceFilename == environment.yaml", group: "rlenv@1" },
    ],
  },
  "rlenv.cancelJob": {
    title: "Cancel Job",
    icon: "$(debug-stop)",
    menus: [{ menu: "view/item/context", when: "view == rlenv.runners && viewItem == job-active", group: "inline@2" }],
  },
  "rlenv.pullRun": {
    title: "Pull Run",
    icon: "$(cloud-download)",
    menus: [{ menu: "view/item/context", when: "view == rlenv.runners && viewItem =~ /^job/", group: "inline@1" }],
  },
  "rlenv.newEnvironment": {
    title: "New Environment…",
    icon: "$(add)",
    menus: [{ menu: "view/title", when: "view == rlenv.environments", group: "navigation@1" }],
  },
  "rlenv.validate": {
    title: "Validate (oracle passes, nop fails)",
    icon: "$(pass)",
    menus: [
      {
        menu: "view/item/context",
        when: "view == rlenv.environments && viewItem == environment || view == rlenv.environments && viewItem == task",
        group: "inline@1",
      },
      {
        menu: "view/item/context",
        when: "view == rlenv.environments && viewItem == environment || view == rlenv.environments && viewItem == task",
        group: "1_run@1",
      },
    ],
  },
  "rlenv.rollout": {
    title: "Rollout with the Configured Policy",
    icon: "$(play)",
    menus: [
      {
        menu: "view/item/context",
        when: "view == rlenv.environments && viewItem == environment || view == rlenv.environments && viewItem == task",
        group: "inline@2",
      },
      {
        menu: "view/item/context",
        when: "view == rlenv.environments && viewItem == environment || view == rlenv.environments && viewItem == task",
        group: "1_run@2",
      },
    ],
  },
  "rlenv.debug": {
    title: "Debug Rollout",
    icon: "$(debug-alt)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.environments && viewItem == task", group: "1_run@3" },
      { menu: "commandPalette", when: "false" },
    ],
  },
  "rlenv.calibrate": {
    title: "Calibrate the Reward Against Human Labels…",
    icon: "$(law)",
    menus: [{ menu: "view/item/context", when: "view == rlenv.environments && viewItem == environment", group: "1_run@5" }],
  },
  "rlenv.openTask": {
    title: "Open Task",
    icon: "$(go-to-file)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.environments && viewItem == task", group: "2_open@1" },
      { menu: "commandPalette", when: "false" },
    ],
  },
  "rlenv.revealEnvironment": {
    title: "Reveal in Explorer",
    icon: "$(folder-opened)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.environments && viewItem == environment", group: "2_open@3" },
      { menu: "commandPalette", when: "false" },
    ],
  },
  "rlenv.openLastTrajectory": {
    title: "Open Last Trajectory",
    icon: "$(history)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.environments && viewItem == task", group: "2_open@2" },
      { menu: "commandPalette", when: "false" },
    ],
  },
  "rlenv.refreshEnvironments": {
    title: "Refresh Environments",
    icon: "$(refresh)",
    menus: [{ menu: "view/title", when: "view == rlenv.environments", group: "navigation@2" }],
  },
  "rlenv.refreshRuns": {
    title: "Refresh Runs",
    icon: "$(refresh)",
    menus: [{ menu: "view/title", when: "view == rlenv.runs", group: "navigation@1" }],
  },
  "rlenv.openRun": {
    title: "Open Run Dashboard",
    icon: "$(dashboard)",
    menus: [
      { menu: "view/item/context", when: "view == rlenv.runs && viewItem == run", group: "inline" },
      { menu: "commandPalette", when: "false" },
    ],
  },
  "rlenv.openRollout": { title: "Open Rollout", icon: "$(eye)", menus: [{ menu: "commandPalette", when: "false" }] },
  "rlenv.setApiKey": { title: "Set Policy API Key", icon: "$(key)" },
  "rlenv.clearApiKey": { title: "Clear Policy API Key" },
  "rlenv.showLog": { title: "Show Log", icon: "$(output)" },
  "rlenv.openSettings": { title: "Open Settings", icon: "$(gear)" },
  "rlenv.debug.openSandboxTerminal": {
    title: "Open Sandbox Terminal",
    icon: "$(terminal)",
    menus: [
      { menu: "view/title", when: "view == rlenv.sandboxFiles", group: "navigation@2" },
      { menu: "view/item/context", when: "view == rlenv.sandboxFiles && viewItem == sandbox", group: "inline@1" },
      { menu: "debug/toolbar", when: "inDebugMode && debugType == rlenv", group: "navigation@90" },
    ],
  },
  "rlenv.debug.openSandboxFiles": {
    title: "Open Sandbox Files",
    icon: "$(files)",
    menus: [{ menu: "debug/toolbar", when: "inDebugMode && debugType == rlenv", group: "navigation@91" }],
  },
  "rlenv.debug.refreshSandboxFiles": {
    title: "Refresh Sandbox Files",
    icon: "$(refresh)",
    menus: [
      { menu: "view/title", when: "view == rlenv.sandboxFiles", group: "navigation@1" },
      { menu: "commandPalette", when: "rlenv.liveSandbox" },
    ],
  },
  "rlenv.playTask": {
    title: "Play Task (you are the agent)",
    icon: "$(person)",
    menus: [{ menu: "view/item/context", when: "view == rlenv.environments && viewItem == task", group: "1_run@4" }],
  },
  "rlenv.debugTask": { title: "Debug Task Rollout", icon: "$(debug-alt)" },
  "rlenv.debug.editPendingCall": {
    title: "Edit Pending Tool Call",
    icon: "$(edit)",
    menus: [
      { menu: "commandPalette", when: "inDebugMode && debugType == rlenv" },
      { menu: "debug/toolbar", when: "inDebugMode && debugType == rlenv && debugState == stopped", group: "navigation@92" },
      { menu: "debug/callstack/context", when: "inDebugMode && debugType == rlenv", group: "rlenv@1" },
    ],
  },
  "rlenv.debug.fork": {
    title: "Fork Rollout with Another Policy",
    icon: "$(repo-forked)",
    menus: [
      { menu: "commandPalette", when: "inDebugMode && debugType == rlenv" },
      { menu: "debug/toolbar", when: "inDebugMode && debugType == rlenv && debugState == stopped", group: "navigation@93" },
      { menu: "debug/callstack/context", when: "inDebugMode && debugType == rlenv", group: "rlenv@2" },
    ],
  },
} as const satisfies Record<string, CommandContribution>;

export type CommandId = keyof typeof COMMAND_CONTRIBUTIONS;

/** package.json's contributes.commands and contributes.menus, from the table. */
export function contributesFromTable(): { commands: Record<string, string>[]; menus: Record<string, Record<string, string>[]> } {
  const commands: Record<string, string>[] = [];
  const menus: Record<string, Record<string, string>[]> = {};
  for (const [command, c] of Object.entries(COMMAND_CONTRIBUTIONS) as [string, CommandContribution][]) {
    commands.push({ command, title: c.title, category: c.category ?? COMMAND_CATEGORY, ...(c.icon ? { icon: c.icon } : {}) });
    for (const m of c.menus ?? []) {
      const list = menus[m.menu] ?? [];
      menus[m.menu] = list;
      list.push({
        command,
        ...(m.when !== undefined ? { when: m.when } : {}),
        ...(m.group !== undefined ? { group: m.group } : {}),
      });
    }
  }
  return { commands, menus };
}

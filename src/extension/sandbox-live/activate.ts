import * as vscode from "vscode";
import type { CommandSpec } from "../commands/table";
import type { ExtensionCtx } from "../context";
import type { LiveRollouts } from "../debug/live-rollouts";
import { SANDBOX_SCHEME, SandboxFileSystem, sandboxUri } from "./files";
import { SandboxFilesTree } from "./files-tree";
import { pickLiveRollout } from "./pick";
import { SandboxPseudoterminal } from "./terminal";

/** What the commands return: the extension-host tests drive the terminal and files through it. */
export interface OpenedSandboxTerminal {
  rolloutId: string;
  terminal: vscode.Terminal;
  pty: SandboxPseudoterminal;
}

/** A rollout id from a command argument: a string (tests, other features) or a "Sandbox Files" tree node. */
function rolloutIdOf(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  const id = (arg as { rollout?: { id?: unknown } } | undefined)?.rollout?.id;
  return typeof id === "string" ? id : undefined;
}

/**
 * The live sandbox of a debugged rollout: a terminal inside it and its workdir, read-only.
 * The commands take an optional rollout id (the debug toolbar passes none: the active session's).
 */
export function activateLiveSandbox(ctx: ExtensionCtx, live: LiveRollouts): CommandSpec[] {
  const files = new SandboxFileSystem(live);
  const tree = new SandboxFilesTree(live);
  const showLive = () => void vscode.commands.executeCommand("setContext", "rlenv.liveSandbox", live.all().length > 0);
  showLive();
  ctx.extension.subscriptions.push(
    tree,
    live.onDidChange(showLive),
    // A debugger that stopped again (another turn ran): show the sandbox as it is now.
    vscode.debug.onDidChangeActiveStackItem(() => {
      tree.refresh();
      files.refresh();
    }),
    vscode.workspace.registerFileSystemProvider(SANDBOX_SCHEME, files, { isReadonly: true, isCaseSensitive: true }),
    vscode.window.createTreeView("rlenv.sandboxFiles", { treeDataProvider: tree, showCollapseAll: true }),
  );
  const openTerminal = async (id?: unknown): Promise<OpenedSandboxTerminal | undefined> => {
    const r = await pickLiveRollout(live, rolloutIdOf(id));
    if (!r) return undefined;
    const pty = new SandboxPseudoterminal(() => r.sandbox(), r.label);
    const terminal = vscode.window.createTerminal({ name: `Sandbox: ${r.label}`, pty, iconPath: new vscode.ThemeIcon("vm") });
    terminal.show();
    ctx.log.info(`sandbox terminal opened on ${r.label}`);
    return { rolloutId: r.id, terminal, pty };
  };
  const openFiles = async (id?: unknown): Promise<{ rolloutId: string; root: vscode.Uri } | undefined> => {
    const r = await pickLiveRollout(live, rolloutIdOf(id));
    if (!r) return undefined;
    tree.refresh();
    files.refresh(r.id);
    await vscode.commands.executeCommand("rlenv.sandboxFiles.focus");
    return { rolloutId: r.id, root: sandboxUri(r.id, "") };
  };
  return [
    { id: "rlenv.debug.openSandboxTerminal", executes: "open a sandbox terminal", refused: undefined, run: (_c, id) => openTerminal(id) },
    { id: "rlenv.debug.openSandboxFiles", executes: "open the sandbox files", refused: undefined, run: (_c, id) => openFiles(id) },
    {
      id: "rlenv.debug.refreshSandboxFiles",
      run: () => {
        tree.refresh();
        files.refresh();
      },
    },
  ];
}

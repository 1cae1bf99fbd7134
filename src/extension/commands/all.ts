import * as vscode from "vscode";
import type { CommandSpec } from "./table";

/**
 * Every command of the extension. Each feature's handler is imported when first run, so
 * activation loads none of them.
 */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  { id: "rlenv.newEnvironment", run: async (ctx, arg) => (await import("../authoring/new-environment")).newEnvironment(ctx, arg) },
  { id: "rlenv.validate", executes: "validate", run: async (ctx, arg) => (await import("../rollouts/commands")).validateCommand(ctx, arg) },
  {
    id: "rlenv.rollout",
    executes: "start a rollout",
    run: async (ctx, arg) => (await import("../rollouts/commands")).rolloutCommand(ctx, arg),
  },
  {
    id: "rlenv.debug",
    executes: "debug a rollout",
    run: async (ctx, arg) => (await import("../rollouts/commands")).debugCommand(ctx, arg),
  },
  {
    id: "rlenv.calibrate",
    executes: "calibrate the reward",
    run: async (ctx, arg) => (await import("../rollouts/commands")).calibrateCommand(ctx, arg),
  },
  { id: "rlenv.playTask", executes: "play a task", run: async (ctx, arg) => (await import("../human/play")).playTaskCommand(ctx, arg) },
  { id: "rlenv.openTask", run: async (ctx, arg) => (await import("../environments/open")).openTask(ctx, arg) },
  { id: "rlenv.revealEnvironment", run: async (ctx, arg) => (await import("../environments/open")).revealEnvironment(ctx, arg) },
  { id: "rlenv.openLastTrajectory", run: async (ctx, arg) => (await import("../environments/open")).openLastTrajectory(ctx, arg) },
  { id: "rlenv.refreshEnvironments", run: (ctx) => ctx.environments.refresh() },
  { id: "rlenv.refreshRuns", run: (ctx) => ctx.runs.refresh() },
  { id: "rlenv.openRun", run: async (ctx, arg) => (await import("../runs/open")).openRun(ctx, arg) },
  { id: "rlenv.openRollout", run: async (ctx, arg) => (await import("../runs/open")).openRollout(ctx, arg) },
  { id: "rlenv.setApiKey", run: async (ctx, arg) => (await import("../settings/api-key")).setApiKey(ctx, arg) },
  { id: "rlenv.clearApiKey", run: async (ctx) => (await import("../settings/api-key")).clearApiKey(ctx) },
  { id: "rlenv.showLog", run: (ctx) => ctx.log.show(true) },
  { id: "rlenv.openSettings", run: () => vscode.commands.executeCommand("workbench.action.openSettings", "rlenv.") },
];

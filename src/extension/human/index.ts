import type * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { LoadedTask } from "../../core/model/environment";
import type { HumanPolicy } from "../../core/policy/human";
import type { ExtensionCtx } from "../context";
import { PlayPanel } from "./panel";

export { type PlaySession, playTaskCommand } from "./play";
export { PlayPanel, type PlayResult } from "./panel";

/**
 * A policy played by the user in a "Play Task" panel, for any rollout (the debugger's fork
 * continues a paused rollout with it). The panel closing fails the policy's wait, so the
 * rollout ends as cancelled; call `finish` on the returned panel to show the outcome.
 */
export function createHumanPolicy(
  ctx: ExtensionCtx,
  env: Environment,
  task: LoadedTask,
): HumanPolicy & { panel: PlayPanel; onDidStop: vscode.Event<void> } {
  const panel = new PlayPanel(ctx.extension, ctx.log, env, task);
  return Object.assign(panel.policy, { panel, onDidStop: panel.onDidStop });
}

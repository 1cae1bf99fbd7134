import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";
import { allowedToExecute } from "../trust/guard";
import type { CommandId } from "./contributions";

/** One command: its id (from the contributions table), what it does, and whether it executes environment code. */
export interface CommandSpec {
  id: CommandId;
  /** Set for commands that run sandboxes or environment commands: refused in an untrusted workspace. */
  executes?: string;
  /** What a refused command returns to its caller (default `{ refused: "untrusted workspace" }`). */
  refused?: unknown;
  run(ctx: ExtensionCtx, ...args: unknown[]): unknown;
}

const REFUSED = { refused: "untrusted workspace" };

/**
 * Registers every command of the extension, the static ones (commands/all.ts) and those of
 * features holding state (viewer, runners, debugger, live sandbox), in one loop: the trust gate
 * and the error handling are here and nowhere else. Failures are logged and shown rather than lost.
 */
export function registerCommands(ctx: ExtensionCtx, specs: readonly CommandSpec[]): vscode.Disposable[] {
  const ids = new Set<string>();
  for (const s of specs) {
    if (ids.has(s.id)) throw new Error(`command ${s.id} is in the command table twice`);
    ids.add(s.id);
  }
  return specs.map((spec) =>
    vscode.commands.registerCommand(spec.id, async (...args: unknown[]) => {
      if (spec.executes && !allowedToExecute(spec.executes)) return "refused" in spec ? spec.refused : REFUSED;
      try {
        return await spec.run(ctx, ...args);
      } catch (e) {
        if (e instanceof Error && /cancelled/.test(e.message)) {
          ctx.log.info(`${spec.id}: ${e.message}`);
          return { cancelled: true };
        }
        const message = e instanceof Error ? e.message : String(e);
        ctx.log.error(`${spec.id} failed: ${e instanceof Error && e.stack ? e.stack : message}`);
        void vscode.window.showErrorMessage(`RL Env Studio: ${message}`);
        return undefined;
      }
    }),
  );
}

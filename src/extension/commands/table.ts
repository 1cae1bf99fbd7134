import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";
import { allowedToExecute } from "../trust/guard";

/** One command: its id (as in package.json), what it does, and whether it executes environment code. */
export interface CommandSpec {
  id: string;
  /** Set for commands that run sandboxes or environment commands: refused in an untrusted workspace. */
  executes?: string;
  run(ctx: ExtensionCtx, ...args: unknown[]): unknown;
}

/** Registers every command in one loop; failures are logged and shown rather than lost. */
export function registerCommands(ctx: ExtensionCtx, specs: readonly CommandSpec[]): vscode.Disposable[] {
  return specs.map((spec) =>
    vscode.commands.registerCommand(spec.id, async (...args: unknown[]) => {
      if (spec.executes && !allowedToExecute(spec.executes)) return { refused: "untrusted workspace" };
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

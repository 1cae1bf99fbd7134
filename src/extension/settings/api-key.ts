import * as vscode from "vscode";
import type { ExtensionCtx } from "../context";

/** Stores the policy API key in SecretStorage (never in settings). A string argument skips the prompt. */
export async function setApiKey(ctx: ExtensionCtx, arg: unknown): Promise<boolean> {
  const key =
    typeof arg === "string"
      ? arg
      : await vscode.window.showInputBox({
          prompt: "API key for the policy server (kept in VS Code's SecretStorage)",
          password: true,
          ignoreFocusOut: true,
        });
  if (!key) return false;
  await ctx.settings.setApiKey(key);
  ctx.log.info("policy API key stored in SecretStorage");
  return true;
}

export async function clearApiKey(ctx: ExtensionCtx): Promise<void> {
  await ctx.settings.clearApiKey();
  ctx.log.info("policy API key removed from SecretStorage");
}

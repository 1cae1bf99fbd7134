import path from "node:path";
import * as vscode from "vscode";
import type { ExtensionApi } from "../../../src/extension/start";

export const EXTENSION_ID = "rlenv.rl-env-studio";

/** The extension, activated, and what its activate returned. */
export async function extensionApi(): Promise<ExtensionApi> {
  const ext = vscode.extensions.getExtension<ExtensionApi | undefined>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed in this host`);
  const api = await ext.activate();
  if (!api) throw new Error("the extension failed to start (see its log)");
  await api.ctx.environments.ready();
  return api;
}

/** The workspace folder the harness opened. */
export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error("no workspace folder open");
  return f.uri.fsPath;
}

export const examplesDir = () => path.join(workspaceDir(), "environments");

/** Polls until `check` returns a truthy value; fails with `what` after the timeout. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Asks the harness to save a screenshot of the workbench (code-server route only; the
 * test-electron route has no page to shoot, so this is a no-op there).
 */
export async function screenshot(name: string): Promise<void> {
  const url = process.env.RLENV_SCREENSHOT_URL;
  if (!url) return;
  await sleep(600); // let the workbench paint what the test just did
  const r = await fetch(`${url}?name=${encodeURIComponent(name)}`);
  if (!r.ok) throw new Error(`screenshot ${name} failed: ${await r.text()}`);
}

/**
 * Counts the elements matching `selector` inside the open webviews (what a person sees,
 * which the extension host cannot read), clicking the first one when `click` is set.
 * Null on a harness without a page (test-electron): the caller then checks what it can from the host.
 */
export async function inWebviews(selector: string, click = false): Promise<number | null> {
  const url = process.env.RLENV_SCREENSHOT_URL;
  if (!url) return null;
  const q = new URLSearchParams({ selector, ...(click ? { click: "1" } : {}) });
  const r = await fetch(`${url.replace(/\/shot$/, "/webview")}?${q}`);
  if (!r.ok) throw new Error(`webview query ${selector} failed: ${await r.text()}`);
  return ((await r.json()) as { count: number }).count;
}

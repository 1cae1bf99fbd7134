import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Flags from HARNESS.md: headless Debian Chromium with WebGL through SwiftShader. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
];

export const REPO = path.resolve(__dirname, "../../..");
export const SCREENSHOTS = path.join(REPO, ".test-artifacts", "screenshots");

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.RLENV_CHROMIUM ?? "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
}

export interface ViewProcess {
  url: string;
  /** Sends SIGTERM; resolves once the server has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `rlenv view PATH` (the built CLI, as a user runs it; `cli`: another launcher, such as an
 * unpacked npm package's; `env`: added to this process's environment) and waits for its URL.
 */
export function rlenvView(target: string, cli = path.join(REPO, "dist", "cli.js"), env: NodeJS.ProcessEnv = {}): Promise<ViewProcess> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [cli, "view", target, "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`rlenv view gave no URL in 20 s: ${err}`));
    }, 20_000);
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (!line) return;
      clearTimeout(timer);
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`rlenv view exited with ${code}: ${err}`));
    });
  });
}

/** Console errors, page errors and CSP violations seen by a page. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

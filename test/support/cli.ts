import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.join(__dirname, "../..");
/** tsx by absolute URL, so the CLI can run from any working folder. */
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** Run the `rlenv` CLI from source (through tsx) and capture its output and exit code. */
export function rlenv(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): { code: number | null; stdout: string; stderr: string; pid: number } {
  const r = spawnSync(process.execPath, ["--import", TSX, path.join(ROOT, "src/cli/main.ts"), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, pid: r.pid };
}

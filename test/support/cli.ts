import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.join(__dirname, "../..");
/** tsx by absolute URL, so the CLI can run from any working folder. */
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** The newest modification time of the files under `dir`, in ms. */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

let command: string[] | undefined;

/**
 * How to start `rlenv` here: the built CLI (node dist/cli.js) when it was built after every file
 * it is built from changed (src/, webviews/, the build script, package.json and its lock), else the sources
 * through tsx. A spawn of the built CLI starts in a fraction of the time tsx takes to transform
 * the sources on every start, which tests that spawn it per shell TAB pay many times over; the
 * test command's build stage runs before its unit stage, so there it is the built one.
 * RLENV_TEST_FROM_SOURCE=1 always runs the sources. Decided once per process.
 */
export function rlenvCommand(): string[] {
  if (command) return command;
  const built = [path.join(ROOT, "dist/cli.js"), path.join(ROOT, "dist/cli-bundle.js")];
  const fresh =
    process.env.RLENV_TEST_FROM_SOURCE !== "1" &&
    built.every(existsSync) &&
    Math.min(...built.map((f) => statSync(f).mtimeMs)) >
      Math.max(
        newestUnder(path.join(ROOT, "src")),
        newestUnder(path.join(ROOT, "webviews")),
        ...["esbuild.mjs", "package.json", "package-lock.json"]
          .map((f) => path.join(ROOT, f))
          .filter(existsSync)
          .map((f) => statSync(f).mtimeMs),
      );
  command = fresh ? [process.execPath, built[0] as string] : [process.execPath, "--import", TSX, path.join(ROOT, "src/cli/main.ts")];
  return command;
}

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

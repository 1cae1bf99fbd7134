import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.join(__dirname, "../..");
/** tsx by absolute URL, so the CLI can run from any working folder. */
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const DIST_LAUNCHER = path.join(ROOT, "dist", "cli.js");
const DIST_BUNDLE = path.join(ROOT, "dist", "cli-bundle.js");

/** The newest modification time of any file under `dir` (0 when there is none). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * Why the built CLI cannot stand in for the sources ("" when it can): it is missing, or a file
 * it is built from changed after it was built: src/, webviews/ (the viewer's pages), the build
 * script, package.json (whose version the build writes in) and its lock.
 */
export function distStale(): string {
  if (!existsSync(DIST_LAUNCHER) || !existsSync(DIST_BUNDLE)) return "dist/cli.js is not built";
  const built = Math.min(statSync(DIST_LAUNCHER).mtimeMs, statSync(DIST_BUNDLE).mtimeMs);
  const inputs = ["package.json", "package-lock.json", "esbuild.mjs"]
    .map((f) => path.join(ROOT, f))
    .filter(existsSync)
    .map((f) => statSync(f).mtimeMs);
  const sources = Math.max(newestMtime(path.join(ROOT, "src")), newestMtime(path.join(ROOT, "webviews")), ...inputs);
  return sources > built ? "dist/ is older than the sources it is built from" : "";
}

let chosen: string[] | undefined;

/**
 * The command line that starts `rlenv` (node and its arguments, before the CLI's own).
 *
 * The built CLI (dist/cli.js, what `rlenv` runs when installed) when it is at least as new as
 * every source file: `npm test` builds it before the tests, and a start through tsx costs
 * about 1.4 s more (tsx compiles the sources on each start), paid on every spawn of every CLI
 * test. Otherwise (sources edited since the last build, a test run by hand) the sources
 * through tsx, so a test never runs code older than what it reads. RLENV_TEST_CLI=tsx or
 * =dist forces one; dist fails plainly when it is missing or stale.
 */
export function rlenvCommand(): string[] {
  if (chosen) return chosen;
  const want = process.env.RLENV_TEST_CLI ?? "auto";
  if (want !== "auto" && want !== "tsx" && want !== "dist") throw new Error(`RLENV_TEST_CLI=${want}: expected tsx, dist or auto`);
  const stale = want === "tsx" ? "RLENV_TEST_CLI=tsx" : distStale();
  if (want === "dist" && stale) throw new Error(`RLENV_TEST_CLI=dist, but ${stale}: run \`npm run build\``);
  chosen = stale ? [process.execPath, "--import", TSX, path.join(ROOT, "src/cli/main.ts")] : [process.execPath, DIST_LAUNCHER];
  return chosen;
}

/** The program and arguments that run `rlenv ARGS...`, for spawn/spawnSync: `spawn(...rlenvArgv(args), opts)`. */
export function rlenvArgv(args: readonly string[]): [string, string[]] {
  const [node, ...pre] = rlenvCommand() as [string, ...string[]];
  return [node, [...pre, ...args]];
}

/** Run the `rlenv` CLI (see rlenvCommand for which build) and capture its output and exit code. */
export function rlenv(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): { code: number | null; stdout: string; stderr: string; pid: number } {
  const r = spawnSync(...rlenvArgv(args), {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, pid: r.pid };
}

/**
 * The shipped `rlenv` (dist/cli.js, built by the test command's build stage): its launcher
 * loads dist/cli-bundle.js through V8's code cache (src/cli/launcher.ts). Checked: the
 * cache is written once and then used, a damaged cache costs nothing but a compile, the
 * switch-off works, and the two files run away from the repository's node_modules (what an
 * installed copy sees: no dev dependencies, no ssh2 unless a ssh:// DOCKER_HOST needs it).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

const DIST = path.join(__dirname, "../../dist");
const VERSION = (JSON.parse(readFileSync(path.join(__dirname, "../../package.json"), "utf8")) as { version: string }).version;
const built = existsSync(path.join(DIST, "cli.js")) && existsSync(path.join(DIST, "cli-bundle.js"));
const skip = built ? false : "dist/cli.js is not built (npm run build)";

function rlenv(cli: string, args: string[], env: Record<string, string>, cwd = tmpdir()) {
  const { NODE_DISABLE_COMPILE_CACHE: _off, ...rest } = process.env;
  return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", env: { ...rest, ...env } });
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^cli-[0-9a-f]+\.v8$/.test(n)) : []);

test("the launcher writes the code cache once, then starts from it", { skip }, () => {
  const cache = mkdtempSync(path.join(tmpdir(), "rlenv-cache-"));
  const first = rlenv(path.join(DIST, "cli.js"), ["--version"], { RLENV_CACHE_DIR: cache });
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stdout.trim(), VERSION);
  const [file] = cacheFiles(cache);
  assert.ok(file, `no cache file in ${cache}`);
  const written = statSync(path.join(cache, file));
  assert.ok(written.size > 100_000, `a cache of ${written.size} bytes holds little of a 6 MB bundle`);
  const second = rlenv(path.join(DIST, "cli.js"), ["--version"], { RLENV_CACHE_DIR: cache });
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout.trim(), VERSION);
  // Accepted, so not written again.
  assert.equal(statSync(path.join(cache, file)).mtimeMs, written.mtimeMs);
  assert.deepEqual(cacheFiles(cache), [file]);
});

test("a damaged cache is rejected by V8 and replaced; the command still runs", { skip }, () => {
  const cache = mkdtempSync(path.join(tmpdir(), "rlenv-cache-"));
  assert.equal(rlenv(path.join(DIST, "cli.js"), ["--version"], { RLENV_CACHE_DIR: cache }).status, 0);
  const [file] = cacheFiles(cache);
  assert.ok(file);
  const full = path.join(cache, file);
  const size = statSync(full).size;
  writeFileSync(full, Buffer.alloc(size, 7));
  const r = rlenv(path.join(DIST, "cli.js"), ["validate", "--help"], { RLENV_CACHE_DIR: cache });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /validate/);
  assert.notDeepEqual(readFileSync(full), Buffer.alloc(size, 7), "the rejected cache was not rewritten");
});

test("NODE_DISABLE_COMPILE_CACHE turns the cache off", { skip }, () => {
  const cache = mkdtempSync(path.join(tmpdir(), "rlenv-cache-"));
  const r = rlenv(path.join(DIST, "cli.js"), ["--version"], { RLENV_CACHE_DIR: cache, NODE_DISABLE_COMPILE_CACHE: "1" });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(cacheFiles(cache), []);
});

test("an unwritable cache folder is skipped without a word", { skip }, () => {
  const r = rlenv(path.join(DIST, "cli.js"), ["--version"], { RLENV_CACHE_DIR: "/dev/null/rlenv-cache" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
});

test("the two files run on their own, away from node_modules (dockerode's ssh and BuildKit parts load only when used)", { skip }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-installed-"));
  mkdirSync(path.join(dir, "bin"));
  for (const f of ["cli.js", "cli-bundle.js"]) copyFileSync(path.join(DIST, f), path.join(dir, "bin", f));
  const cache = path.join(dir, "cache");
  const env = { RLENV_CACHE_DIR: cache, DOCKER_HOST: "unix:///nonexistent/docker.sock" };
  const version = rlenv(path.join(dir, "bin", "cli.js"), ["--version"], env, dir);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), VERSION);
  // Commands that make a dockerode client and use it (the engine is out of reach: that error is the one expected).
  assert.equal(rlenv(path.join(dir, "bin", "cli.js"), ["new", "code", "demo"], env, dir).status, 0);
  const run = rlenv(path.join(dir, "bin", "cli.js"), ["validate", "--run", "--sandbox", "docker", "demo"], env, dir);
  assert.notEqual(run.status, 0);
  assert.doesNotMatch(run.stderr, /Cannot find module/);
  assert.match(run.stderr, /docker/i, run.stderr);
  assert.equal(cacheFiles(cache).length, 1);
});

/** Runs `rlenv view FILE --json` until it prints its URL, fetches the page, and stops it. */
async function viewOnce(cli: string, file: string, cache: string): Promise<{ page: number; stderr: string }> {
  const { NODE_DISABLE_COMPILE_CACHE: _off, ...rest } = process.env;
  const child = spawn(process.execPath, [cli, "view", file, "--json"], {
    env: { ...rest, RLENV_CACHE_DIR: cache },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve((JSON.parse(out.split("\n")[0] ?? "") as { url: string }).url);
      });
      child.once("exit", (code) => reject(new Error(`rlenv view exited (${code}): ${stderr}`)));
    });
    return { page: (await fetch(url)).status, stderr };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const viewCaches = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^cli-view-[0-9a-f]+\.v8$/.test(n)) : []);

test("`rlenv view` loads the view bundle alone (its own code cache), and the whole CLI where that file is missing", { skip }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-view-launch-"));
  const file = path.join(dir, "rollout.jsonl");
  writeFileSync(file, `${JSON.stringify({ type: "start", t: 0, rollout_id: "r", task_id: "t", env: "e" })}\n`);
  const cache = path.join(dir, "cache");
  const r = await viewOnce(path.join(DIST, "cli.js"), file, cache);
  assert.equal(r.page, 200, r.stderr);
  assert.equal(viewCaches(cache).length, 1, `a cache of the view bundle in ${readdirSync(cache).join(", ")}`);
  assert.deepEqual(cacheFiles(cache), [], "the whole CLI bundle was loaded for `view`");
  // A copy with only the launcher and the whole bundle (and the viewer's assets) still serves.
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  for (const f of ["cli.js", "cli-bundle.js"]) copyFileSync(path.join(DIST, f), path.join(bin, f));
  symlinkSync(path.join(DIST, "webviews"), path.join(bin, "webviews"));
  const cache2 = path.join(dir, "cache2");
  const whole = await viewOnce(path.join(bin, "cli.js"), file, cache2);
  assert.equal(whole.page, 200, whole.stderr);
  assert.equal(cacheFiles(cache2).length, 1);
  assert.deepEqual(viewCaches(cache2), []);
});

test("the CLI's bundles are ASCII (the launcher reads them as one-byte strings), their regexes' characters escaped to the same meaning", {
  skip,
}, () => {
  for (const name of ["cli-bundle.js", "cli-view.js", "cli.js"]) {
    const bytes = readFileSync(path.join(DIST, name));
    const at = bytes.findIndex((b) => b > 0x7f);
    assert.equal(at, -1, `${name} has a non-ASCII byte at ${at}: ${bytes.subarray(Math.max(0, at - 60), at + 20).toString("utf8")}`);
  }
  // A regex whose source holds "−", "€" and "₹" (src/core/reward/comparators/quantity.ts) matches in the bundle as in the source.
  const source = readFileSync(path.join(__dirname, "../../src/core/reward/comparators/quantity.ts"), "utf8");
  const bundle = readFileSync(path.join(DIST, "cli-bundle.js"), "latin1");
  const literal = /\/\(\?<open>[^\n]*?\/giu/;
  const [fromSource, fromBundle] = [source, bundle].map((text) => {
    const m = literal.exec(text)?.[0];
    assert.ok(m, "the quantity regex was not found");
    return new Function(`return ${m}`)() as RegExp;
  });
  assert.match(String(fromSource?.source), /[−€₹]/);
  const text = "revenue −$1,234 and –€5 million, ₹7 bn, (£3), 12% and ¥9";
  const found = (r: RegExp) => [...text.matchAll(r)].map((m) => m[0]);
  assert.deepEqual(found(fromBundle as RegExp), found(fromSource as RegExp));
  assert.equal(found(fromBundle as RegExp).length, 6);
});

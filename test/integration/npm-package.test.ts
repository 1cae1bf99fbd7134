/**
 * The package npm would publish (`npm pack`, its `files` list): unpacked alone, with no
 * node_modules beside it and an empty HOME, its `rlenv` validates an environment it ships on the
 * process backend, runs it, and serves the run's dashboard with the app inside the page; it holds
 * none of the repository's sources, tests or source maps.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { isolationUnavailable } from "../../src/core/sandbox/process/isolation";
import { rlenvView } from "../e2e/support/browser";
import { distStale } from "../support/cli";

const REPO = path.resolve(__dirname, "..", "..");
const stale = distStale();
const skip = stale
  ? `${stale} (npm run build)`
  : isolationUnavailable("bwrap") && isolationUnavailable("unshare")
    ? "the process sandbox cannot isolate here"
    : false;

test("npm pack: the package alone validates, runs and views an environment it ships, with no sources, tests or maps in it", {
  skip,
  timeout: 300_000,
}, async () => {
  const work = mkdtempSync(path.join(tmpdir(), "rlenv-pack-"));
  try {
    const packed = spawnSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: REPO, encoding: "utf8" });
    assert.equal(packed.status, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(info);
    const files = info.files.map((f) => f.path);
    for (const need of ["dist/cli.js", "dist/cli-bundle.js", "dist/extension.js", "dist/agent.py", "scripts/image/rootfs.sh", "LICENSE"])
      assert.ok(files.includes(need), `the package holds ${need}`);
    assert.ok(
      files.some((f) => f.startsWith("dist/view-pages/")),
      "the viewer's page bundles are in",
    );
    assert.deepEqual(
      files.filter((f) => /^(src|test|webviews|node_modules|\.test-artifacts)\/|\.map$|\.ts$/.test(f)),
      [],
      "no sources, tests or source maps",
    );

    const unpacked = path.join(work, "unpacked");
    mkdirSync(unpacked);
    const tar = spawnSync("tar", ["-xzf", path.join(work, info.filename), "-C", unpacked], { encoding: "utf8" });
    assert.equal(tar.status, 0, tar.stderr);
    const pkg = path.join(unpacked, "package");
    assert.ok(!existsSync(path.join(pkg, "node_modules")));
    const home = path.join(work, "home");
    mkdirSync(home);
    const { DOCKER_HOST: _host, RLENV_CACHE_DIR: _cache, ...env } = process.env;
    const version = spawnSync(process.execPath, [path.join(pkg, "dist", "cli.js"), "--version"], { cwd: work, encoding: "utf8" });
    assert.equal(version.stdout.trim(), JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")).version);
    const r = spawnSync(
      process.execPath,
      [path.join(pkg, "dist", "cli.js"), "validate", "--run", path.join(pkg, "environments", "code-stdio"), "--sandbox", "process"],
      { cwd: work, env: { ...env, HOME: home }, encoding: "utf8", timeout: 280_000 },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, out);
    assert.match(r.stdout, /✓ code-stdio: \d+ tasks validated/, out);

    const cli = path.join(pkg, "dist", "cli.js");
    const run = spawnSync(
      process.execPath,
      [cli, "run", path.join(pkg, "environments", "code-stdio"), "--limit", "2", "--sandbox", "process"],
      {
        cwd: work,
        env: { ...env, HOME: home },
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const [runDir] = readdirSync(path.join(work, "runs"));
    assert.ok(runDir, "the run wrote its folder under runs/");
    const served = await rlenvView(path.join(work, "runs", runDir), cli);
    try {
      const page = await (await fetch(served.url)).text();
      // (The page is a megabyte: a failure names what is missing, not the page.)
      assert.ok(/<script type="module"[^>]* nonce="[^"]+">[^<]/.test(page), "the dashboard's app is inside its page");
      assert.ok(!/<script[^>]* src=/.test(page), "no script is fetched from outside the page");
      const style = /<link rel="stylesheet" href="([^"]+)"/.exec(page);
      if (style?.[1]) assert.equal((await fetch(new URL(style[1], served.url))).status, 200);
    } finally {
      served.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

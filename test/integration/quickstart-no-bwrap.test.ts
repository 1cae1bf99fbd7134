/**
 * The README quick start's first line on a machine with neither bubblewrap nor Docker, as root:
 * the process backend must fall back to unshare, and its reuse of sandboxes (a wipe through the
 * agent between rollouts) must hold there as under bubblewrap. The machine's own bwrap, docker
 * binaries and engine sockets are hidden in a private mount namespace (nothing outside it sees
 * a change), HOME is an empty folder (no caches), and the validate command is the README's own.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { isolationUnavailable } from "../../src/core/sandbox/process/isolation";

const REPO = path.resolve(__dirname, "..", "..");

/** The part of the README quick start's first line after the build: the command that validates. */
function quickStartValidate(): string {
  const readme = readFileSync(path.join(REPO, "README.md"), "utf8");
  const block = /## Quick start[\s\S]*?```sh\n([^\n]*)\n/.exec(readme);
  assert.ok(block?.[1], "README.md has a Quick start with a sh block");
  const validate = block[1]
    .split("&&")
    .map((s) => s.trim())
    .find((s) => s.startsWith("node dist/cli.js validate"));
  assert.ok(validate, `the quick start's first line validates with dist/cli.js: ${block[1]}`);
  return validate;
}

/** Every file that would let a program find bubblewrap or Docker here. */
function hiddenPaths(): string[] {
  const dirs = (process.env.PATH ?? "").split(":").filter(Boolean);
  const found = new Set<string>();
  for (const name of ["bwrap", "docker", "dockerd"])
    for (const d of dirs) if (existsSync(path.join(d, name))) found.add(path.join(d, name));
  for (const sock of ["/var/run/docker.sock", "/run/docker.sock"]) if (existsSync(sock)) found.add(sock);
  return [...found];
}

const skip =
  process.getuid?.() !== 0
    ? "hiding bubblewrap and Docker in a private mount namespace needs root"
    : isolationUnavailable("unshare")
      ? `unshare cannot isolate here: ${isolationUnavailable("unshare")}`
      : !existsSync(path.join(REPO, "dist", "cli.js"))
        ? "dist/cli.js is not built (npm run build)"
        : false;

test("the README quick start validates code-stdio on a root machine without bubblewrap or Docker (unshare)", {
  skip,
  timeout: 300_000,
}, () => {
  const home = mkdtempSync(path.join(tmpdir(), "rlenv-quickstart-"));
  try {
    const empty = path.join(home, "empty");
    writeFileSync(empty, "");
    // A private mount namespace: each hidden path becomes an empty, unexecutable file there only.
    const hide =
      'mount --make-rprivate / && e=$1 && shift && n=$1 && shift && while [ "$n" -gt 0 ]; do mount --bind "$e" "$1" || exit 90; shift; n=$((n-1)); done && exec "$@"';
    const hidden = hiddenPaths();
    const { DOCKER_HOST: _host, RLENV_ISOLATION: _forced, ...env } = process.env;
    const r = spawnSync(
      "unshare",
      [
        "-m",
        "/bin/sh",
        "-c",
        `${hide}`,
        "sh",
        empty,
        String(hidden.length),
        ...hidden,
        "/bin/sh",
        "-c",
        `command -v bwrap >/dev/null && bwrap --version >/dev/null 2>&1 && echo 'bwrap still runs'; ${quickStartValidate()}`,
      ],
      { cwd: REPO, env: { ...env, HOME: home }, encoding: "utf8", timeout: 280_000 },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    assert.doesNotMatch(out, /bwrap still runs/, "bubblewrap is hidden");
    assert.equal(r.status, 0, out);
    assert.match(r.stdout, /✓ code-stdio: \d+ tasks validated/, out);
    assert.doesNotMatch(out, /✗|unsafe|no sandbox is available/i, out);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

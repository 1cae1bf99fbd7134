import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { makeFixtureEnv, REPO, RLENV, type StartedRunner, startRunner } from "./remote-helpers";

/** The client commands against a real runner: submit -f, jobs, logs, jobs --cancel, pull; runners.yaml and credentials. */
let runner: StartedRunner;
let home: string;
before(async () => {
  home = mkdtempSync(path.join(tmpdir(), "rlenv-cli-home-"));
  runner = await startRunner(path.join(home, "runner-data"));
  writeFileSync(path.join(home, "runners.yaml"), `runners:\n  box:\n    url: ${runner.url}\n`);
  writeFileSync(path.join(home, "credentials.json"), JSON.stringify({ box: runner.token }), { mode: 0o600 });
});
after(async () => {
  await runner?.stop();
  rmSync(home, { recursive: true, force: true });
});

function rlenv(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const [cmd, ...pre] = RLENV;
  const r = spawnSync(cmd ?? "node", [...pre, ...args], {
    cwd: home,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, RLENV_RUNNERS: path.join(home, "runners.yaml"), RLENV_CREDENTIALS: path.join(home, "credentials.json"), ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("submit -f --pull follows to completion with the run pulled; jobs, logs and pull work by runner name", () => {
  const env = makeFixtureEnv(2, 0);
  const sub = rlenv(["submit", env, "--runner", "box", "--sandbox", "process", "-k", "2", "-f", "--pull", "followed"]);
  assert.equal(sub.status, 0, sub.stderr);
  const jobId = sub.stdout.trim();
  assert.match(jobId, /^j\d+-[0-9a-f]{6}$/);
  assert.match(sub.stderr, /state completed/);
  assert.match(sub.stderr, /rollout t1#1 completed reward 1/);
  const followed = /pulled \d+ files into (\S+)/.exec(sub.stderr)?.[1] ?? "";
  assert.ok(followed.startsWith("followed/"), sub.stderr);
  assert.equal(readdirSync(path.join(home, followed, "rollouts")).length, 4);
  assert.ok(existsSync(path.join(home, followed, "summary.json")));
  const jobs = rlenv(["jobs", "--runner", "box"]);
  assert.equal(jobs.status, 0, jobs.stderr);
  assert.match(jobs.stdout, new RegExp(`${jobId}\\s+completed\\s+4/4\\s+reward 1\\.000\\s+remote-fixture\\s+local`));
  const logs = rlenv(["logs", jobId, "--runner", "box"]);
  assert.match(logs.stdout, /state queued[\s\S]*state running[\s\S]*progress 4\/4 mean reward 1\.000[\s\S]*state completed/);
  const pull = rlenv(["pull", jobId, "--runner", "box"]);
  assert.equal(pull.status, 0, pull.stderr);
  const dir = path.join(home, pull.stdout.trim());
  assert.ok(dir.startsWith(path.join(home, "runs")));
  assert.equal(readdirSync(path.join(dir, "rollouts")).length, 4);
  assert.ok(existsSync(path.join(dir, "summary.json")));
  // The pulled run is a run like any other: `rlenv export` reads it.
  const exp = rlenv(["export", dir, "--format", "chat-jsonl"]);
  assert.equal(exp.status, 0, exp.stderr);
});

test("jobs --cancel cancels a running job, by URL with the token from the environment", async () => {
  const env = makeFixtureEnv(2, 60);
  const sub = rlenv(["submit", env, "--runner", runner.url, "--sandbox", "process"], {
    RLENV_RUNNER_TOKEN: runner.token,
    RLENV_CREDENTIALS: "/nonexistent",
  });
  assert.equal(sub.status, 0, sub.stderr);
  const jobId = sub.stdout.trim();
  await new Promise((r) => setTimeout(r, 3000));
  const cancel = rlenv(["jobs", jobId, "--cancel", "--runner", runner.url], { RLENV_RUNNER_TOKEN: runner.token });
  assert.equal(cancel.status, 0, cancel.stderr);
  assert.match(cancel.stdout, new RegExp(`${jobId} cancelled`));
});

test("a readable credentials file, an unknown runner and a wrong token are clear errors", () => {
  chmodSync(path.join(home, "credentials.json"), 0o644);
  const open = rlenv(["jobs", "--runner", "box"]);
  assert.notEqual(open.status, 0);
  assert.match(open.stderr, /credentials\.json is readable by others \(mode 644\): chmod 600 it/);
  chmodSync(path.join(home, "credentials.json"), 0o600);
  const unknown = rlenv(["jobs", "--runner", "nope"]);
  assert.match(unknown.stderr, /no runner "nope" in .*runners\.yaml \(known: box\)/);
  const wrong = rlenv(["jobs", "--runner", "box"], { RLENV_RUNNER_TOKEN_BOX: "wrong" });
  assert.match(wrong.stderr, /HTTP 401: wrong token/);
  assert.ok(REPO);
});

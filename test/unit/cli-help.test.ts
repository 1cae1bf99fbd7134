// `rlenv --help` states the exit codes every command keeps to, with examples; `jobs cancel ID` is a verb.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";

test("--help lists the exit codes and examples", () => {
  const r = rlenv(["--help"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Exit codes \(every command\):\n\s+0\s+success\n\s+1\s+a check failed[^\n]*\n\s+2\s+misuse or bad input/);
  assert.match(r.stdout, /Examples:\n\s+rlenv new code my-env/);
});

test("jobs cancel without an id is misuse (exit 2), named before any runner is asked", () => {
  const r = rlenv(["jobs", "cancel"], { env: { RLENV_RUNNER: "" } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /jobs cancel needs a job id: rlenv jobs cancel ID/);
  const two = rlenv(["jobs", "a1", "b2"]);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /jobs takes one job id/);
});

test("a folder that is not there is bad input (exit 2) for every command that takes one, named in the message", () => {
  const missing = path.join(tmpdir(), `rlenv-no-such-${process.pid}`);
  const out = mkdtempSync(path.join(tmpdir(), "rlenv-exit-"));
  try {
    for (const args of [
      ["validate", missing],
      ["run", missing, "--policy", "nop"],
      ["audit", missing, "--sandbox", "process", "--out", path.join(out, "audit")],
      ["index", missing],
      ["report", missing],
      ["export", missing],
      ["view", missing],
    ]) {
      const r = rlenv(args, { cwd: out });
      assert.equal(r.code, 2, `rlenv ${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.ok((r.stdout + r.stderr).includes(missing), `rlenv ${args.join(" ")} names the folder: ${r.stdout}${r.stderr}`);
    }
    // A folder that is there but is not a run: said so, not a bare ENOENT.
    const report = rlenv(["report", out], { cwd: out });
    assert.equal(report.code, 2);
    assert.match(report.stderr, /not a run folder \(it has no run\.json/);
    assert.doesNotMatch(report.stderr, /ENOENT/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("a manifest with a problem is a failed check for validate (exit 1) and bad input for run (exit 2)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-exit-"));
  try {
    writeFileSync(path.join(dir, "environment.yaml"), "name: broken\ndomain: code\ntasks: tasks.jsonl\ntols: [bash]\nreward: []\n");
    writeFileSync(path.join(dir, "tasks.jsonl"), "");
    assert.equal(rlenv(["validate", dir], { cwd: dir }).code, 1);
    assert.equal(rlenv(["run", dir, "--policy", "nop"], { cwd: dir }).code, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

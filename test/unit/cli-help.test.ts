// `rlenv --help` states the exit codes every command keeps to, with examples; `jobs cancel ID` is a verb.
import assert from "node:assert/strict";
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

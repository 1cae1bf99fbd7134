// What a Harbor task's container is given, and what a failed Harbor verification or build says.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { failedTests, harborCause, solveFailure } from "../../src/core/reward/harbor/failure-cause";
import { lastTellingLine } from "../../src/core/util/telling-line";
import { containerSpec } from "../../src/core/sandbox/docker/container";
import { buildFailure } from "../../src/core/sandbox/image/harbor-build";
import { processDifference } from "../../src/core/sandbox/image/stand-in";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";

const SAMPLE = path.join(__dirname, "../fixtures/harbor-tasks/regex-log");

test("a Harbor task's container keeps Docker's default capabilities, no-new-privileges and no network; a native one drops them all", () => {
  const harbor = loadEnvironment(SAMPLE).env;
  assert.ok(harbor);
  assert.equal(harbor.manifest.sandbox.capabilities, "default");
  const spec = containerSpec(sandboxRequest(harbor), "x").HostConfig;
  assert.equal(spec?.CapDrop, undefined);
  assert.deepEqual(spec?.SecurityOpt, ["no-new-privileges"]);
  assert.equal(spec?.NetworkMode, "none");

  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-caps-"));
  try {
    const manifest = (caps: string) =>
      `name: caps\ndomain: code\n${caps}tasks: tasks.jsonl\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: "true"\n`;
    writeFileSync(path.join(dir, "tasks.jsonl"), '{"id": "t", "prompt": "p"}\n');
    writeFileSync(path.join(dir, "environment.yaml"), manifest(""));
    const native = loadEnvironment(dir).env;
    assert.ok(native);
    assert.equal(native.manifest.sandbox.capabilities, "none");
    assert.deepEqual(containerSpec(sandboxRequest(native), "x").HostConfig?.CapDrop, ["ALL"]);
    writeFileSync(path.join(dir, "environment.yaml"), manifest("sandbox:\n  capabilities: default\n"));
    const asked = loadEnvironment(dir).env;
    assert.ok(asked);
    assert.equal(containerSpec(sandboxRequest(asked), "x").HostConfig?.CapDrop, undefined);
    // The process backend cannot grant them: said before the run, not found out from a failing chown.
    assert.match(processDifference(asked) ?? "", /process sandboxes grant no capability/);
    assert.doesNotMatch(processDifference(native) ?? "", /capabilit/);
    writeFileSync(path.join(dir, "environment.yaml"), manifest("sandbox:\n  capabilities: all\n"));
    const bad = loadEnvironment(dir);
    assert.equal(bad.env, null);
    assert.match(bad.problems.map((p) => `${p.path}: ${p.message}`).join("\n"), /sandbox\.capabilities/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const observation = (output: string): TrajectoryEvent =>
  ({ type: "observation", tool_call_id: "c", name: "bash", output, status: "ok", duration_ms: 1, turn: 0 }) as TrajectoryEvent;

test("a failed Harbor verification names the failing tests and solve.sh's exit status with its telling line", () => {
  // As the bash tool returns it: the oracle command's output, then the tool's own exit line.
  const oracle = observation(
    "Reading package lists...\nE: Unable to locate package foo\ncleaning up\n[solve.sh exited 100]\n[exit code 0]",
  );
  assert.equal(solveFailure([oracle]), "solve.sh exited 100: E: Unable to locate package foo");
  assert.equal(solveFailure([observation("ok\n[solve.sh exited 0]")]), null);
  assert.equal(solveFailure([observation("an agent's command")]), null);
  assert.equal(solveFailure([observation("[solve.sh exited 2]")]), "solve.sh exited 2");
  const summary =
    "FAILED ../tests/test_outputs.py::test_answer - AssertionError: assert '41' == '42'\nERROR /tests/test_x.py - ImportError";
  assert.deepEqual(failedTests(summary), [
    "FAILED test_outputs.py::test_answer - AssertionError: assert '41' == '42'",
    "ERROR test_x.py - ImportError",
  ]);
  assert.equal(
    harborCause({ failed: failedTests(summary).slice(0, 1), exitCode: 0, solve: solveFailure([oracle]) }),
    "FAILED test_outputs.py::test_answer - AssertionError: assert '41' == '42'; solve.sh exited 100: E: Unable to locate package foo",
  );
  assert.equal(harborCause({ failed: [], exitCode: 2, solve: null }), "test.sh exited 2");
  assert.equal(lastTellingLine("compiling\nok\n"), "ok");
});

test("a failed image build names its step, the exit status and the step's telling line", () => {
  const step = "Step 4/4 : RUN apt-get install -y nope";
  const tail = [step, " ---> Running in 0123", "Reading package lists...", "E: Unable to locate package nope"];
  assert.equal(
    buildFailure("t's image", step, "The command '/bin/sh -c apt-get install -y nope' returned a non-zero code: 100", tail),
    "building t's image failed at Step 4/4 : RUN apt-get install -y nope (exit 100) — E: Unable to locate package nope",
  );
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readRun } from "../../src/core/runs/run-dir";
import { runRecord, startEvent, writeRunFolder } from "../support/run-folder";

test("the run-folder fixture writes a run.json the core reader takes as it is", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-run-fixture-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const written = writeRunFolder(dir, { id: "fx", config: { policy: { kind: "replay" }, k: 3 } });
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")), written);
  const { record } = readRun(dir);
  assert.equal(record.id, "fx");
  assert.equal(record.config.k, 3);
});

test("a fixture the core schemas would refuse fails where it is made, naming the field", () => {
  assert.throws(() => runRecord({ status: "finished" as never }), /status/);
  assert.throws(() => runRecord({ env: { name: "e" } as never }), /env/);
  assert.throws(() => startEvent({ sample: -1 }), /sample/);
  assert.throws(() => startEvent({ sandbox: {} as never }), /sandbox/);
});

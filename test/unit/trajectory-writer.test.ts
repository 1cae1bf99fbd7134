import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, open, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { TrajectoryWriter } from "../../src/core/rollout/trajectory-writer";

/** Resolves after `turns` turns of the event loop: long enough for any work that does not wait on something else. */
const loopTurns = (turns: number) =>
  new Promise<"still waiting">((resolve) => {
    const step = (left: number) => (left === 0 ? resolve("still waiting") : setImmediate(() => step(left - 1)));
    step(turns);
  });

test("a rollout's trajectory file is made while libuv's thread pool is busy with other work", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-writer-"));
  // Opening a FIFO for reading holds a pool thread until a writer opens it: these hold every thread and queue more.
  const fifos = Array.from({ length: 16 }, (_, i) => path.join(dir, `fifo-${i}`));
  for (const f of fifos) execFileSync("mkfifo", [f]);
  const held = fifos.map((f) => new Promise<number>((resolve, reject) => open(f, "r", (err, fd) => (err ? reject(err) : resolve(fd)))));
  try {
    const file = path.join(dir, "rollouts", "t-0.jsonl");
    const made = await Promise.race([TrajectoryWriter.create(file), loopTurns(50)]);
    assert.notEqual(made, "still waiting", "the writer waited for the thread pool");
    if (made === "still waiting") return;
    made.write({ type: "message", role: "user", content: "hello" });
    // Release the pool so close (fsync on the pool) can run.
    for (const f of fifos) closeSync(openSync(f, "w"));
    for (const fd of await Promise.all(held)) closeSync(fd);
    await made.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]!).content, "hello");
  } finally {
    for (const f of fifos) {
      try {
        closeSync(openSync(f, "w+"));
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a trajectory that exists is never appended to", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-writer-"));
  try {
    const file = path.join(dir, "t-0.jsonl");
    writeFileSync(file, '{"type":"start"}\n');
    await assert.rejects(TrajectoryWriter.create(file), /EEXIST/);
    assert.equal(readFileSync(file, "utf8"), '{"type":"start"}\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

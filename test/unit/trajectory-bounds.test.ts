import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { readReportRollouts } from "../../src/core/report/read-rollouts";
import { TrajectoryLimitError } from "../../src/core/rollout/trajectory-bounds";
import { TrajectoryWriter } from "../../src/core/rollout/trajectory-writer";
import { parseEventLine, readTrajectory } from "../../src/core/runs/trajectory-reader";

const dir = mkdtempSync(path.join(tmpdir(), "rlenv-bounds-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const start = {
  type: "start" as const,
  run_id: "r",
  rollout_id: "t.s0",
  env: { name: "e", hash: "h", domain: "custom" },
  task: { id: "t", prompt: "p" },
  policy: { kind: "oracle" },
  sample: 0,
  sandbox: { backend: "process" },
};
const end = {
  type: "end" as const,
  status: "completed" as const,
  reward: 1,
  turns: 1,
  usage: { prompt_tokens: 0, completion_tokens: 0 },
  timings: { total_ms: 1, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 },
};
const observation = (output: string) => ({
  type: "observation" as const,
  tool_call_id: "c",
  name: "shout",
  output,
  status: "ok" as const,
  duration_ms: 1,
});

test("an event over the limit is written cut, with a mark, and still reads as an event", async () => {
  const file = path.join(dir, "event.jsonl");
  const w = await TrajectoryWriter.create(file, { maxEventBytes: 4096, maxBytes: 1 << 20 });
  w.write(observation(`${"a".repeat(50_000)}THE END`));
  await w.close();
  const line = readFileSync(file, "utf8").trimEnd();
  assert.ok(Buffer.byteLength(line) <= 4096, `${Buffer.byteLength(line)} bytes`);
  const r = parseEventLine(line);
  assert.ok(r.ok && r.event.type === "observation");
  assert.match(String(r.event.output), /characters cut: the event was over the trajectory's limit of 4096 bytes/);
  assert.match(String(r.event.output), /THE END$/);
});

test("a trajectory at its size limit refuses more, and still ends with its reward and end", async () => {
  const file = path.join(dir, "whole.jsonl");
  const w = await TrajectoryWriter.create(file, { maxEventBytes: 4096, maxBytes: 20_000 });
  w.write(start);
  let refused: unknown;
  for (let i = 0; i < 100 && !refused; i++) {
    try {
      w.write(observation("y".repeat(2000)));
    } catch (e) {
      refused = e;
    }
  }
  assert.ok(refused instanceof TrajectoryLimitError, String(refused));
  w.write({ type: "reward", total: 0, components: [] });
  w.write({ ...end, status: "truncated", reason: (refused as Error).message, reward: 0 });
  await w.close();
  assert.ok(statSync(file).size <= 20_000 + 1024);
  const read = readTrajectory(file);
  assert.deepEqual(read.bad, []);
  assert.equal(read.events.at(-1)?.type, "end");
});

test("a trajectory over 512 MiB is reported, read line by line (a string that size cannot be made)", () => {
  const file = path.join(dir, "huge.jsonl");
  const fd = openSync(file, "w");
  const mib = `${JSON.stringify(observation("z".repeat(1024 * 1024)))}\n`;
  try {
    writeSync(fd, `${JSON.stringify({ ...start, seq: 0, t: 0 })}\n`);
    for (let i = 0; i < 540; i++) writeSync(fd, mib.replace('"type":"observation"', `"type":"observation","seq":${i + 1},"t":0`));
    writeSync(fd, `${JSON.stringify({ ...end, seq: 541, t: 0 })}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    assert.ok(statSync(file).size > 0x1fffffe8);
    const [r] = readReportRollouts(dir, [file]);
    assert.equal(r?.status, "completed");
    assert.equal(r?.reward, 1);
    assert.equal(r?.observations, 540);
  } finally {
    rmSync(file);
  }
});

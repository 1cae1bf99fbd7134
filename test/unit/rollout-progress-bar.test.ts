import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { parseShard, policyFromFlags } from "../../src/cli/commands/run";
import { progressPrinter } from "../../src/cli/commands/run-progress";

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let out = "";
  const write = (s: string) => {
    out += s;
    return true;
  };
  const stream = { isTTY, write } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

const progress = {
  type: "progress" as const,
  done: 3,
  total: 12,
  meanReward: 0.5,
  rate: 1.5,
  eta: 6,
  policyInFlight: 2,
  policyQueue: 0,
  sandboxesBusy: 4,
};
const end = {
  type: "rollout-end" as const,
  task: "t1",
  sample: 0,
  rolloutId: "t1.s0",
  status: "timeout" as const,
  reward: 0.25,
  file: "f",
  reason: "rollout timeout (1 s) reached",
  infra: false,
};

test("on a terminal: one bar rewritten in place with done/total, mean reward, rate and ETA", () => {
  const { stream, text } = fakeStream(true);
  const p = progressPrinter(stream);
  p.onProgress(end);
  p.onProgress(progress);
  p.onProgress({ ...progress, done: 4 });
  p.finish();
  const out = text();
  assert.ok(!out.includes("t1 #0"), "no per-rollout lines on a terminal");
  assert.match(out, /\r\x1b\[2K\[######-+\] 3\/12 {2}mean reward 0\.500 {2}1\.50\/s {2}ETA 0:06/);
  assert.match(out, /4\/12/);
  assert.ok(out.endsWith("\n"));
});

test("off a terminal: a plain line per finished rollout, no escape codes", () => {
  const { stream, text } = fakeStream(false);
  const p = progressPrinter(stream);
  p.onProgress(end);
  p.onProgress(progress);
  p.onProgress({ type: "log", level: "warn", message: "retrying" });
  p.finish();
  assert.equal(text(), "timeout   reward=0.250 t1 #0 (rollout timeout (1 s) reached)\nwarn: retrying\n");
});

test("policy and shard flags", () => {
  const base = { k: 1, concurrency: 1, sandbox: "auto" as const, runs: "runs" };
  assert.deepEqual(
    policyFromFlags({ ...base, policy: "openai", model: "m", baseUrl: "http://127.0.0.1:1/v1", temperature: 0.2, stream: true }),
    {
      kind: "openai",
      model: "m",
      base_url: "http://127.0.0.1:1/v1",
      temperature: 0.2,
      stream: true,
    },
  );
  const recorded = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-replay-")), "x.jsonl");
  writeFileSync(recorded, "");
  assert.equal(policyFromFlags({ ...base, policy: `replay:${recorded}` }).replay, recorded);
  // A missing file fails here, once, before any rollout starts.
  assert.throws(() => policyFromFlags({ ...base, policy: `replay:${recorded}.missing` }), /no such file or run folder/);
  assert.throws(() => policyFromFlags({ ...base, policy: "replay" }), /needs a file or run folder/);
  assert.throws(() => policyFromFlags({ ...base, policy: "gpt" }), /--policy must be/);
  assert.deepEqual(parseShard("1/4"), { index: 1, count: 4 });
  assert.throws(() => parseShard("4/4"), /need 0 ≤ i < N/);
  assert.throws(() => parseShard("x"), /i\/N/);
});

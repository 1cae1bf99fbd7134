import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parseOnlySamples } from "../../src/cli/commands/run";
import { memberWeight, placeRollouts, type RolloutRef, samplesConfig } from "../../src/core/fleet/placement";
import { readPools } from "../../src/core/fleet/pool-config";
import { RolloutClaims } from "../../src/core/fleet/rollout-claims";
import type { RunnerStatus } from "../../src/core/remote/api";
import { samplesOf } from "../../src/core/rollout/run-environment";

const refs = (n: number): RolloutRef[] =>
  Array.from({ length: n }, (_, i) => ({ key: `t${i >> 2}.s${i % 4}`, task: `t${i >> 2}`, sample: i % 4 }));
const status = (o: Partial<{ free: number; queue: number; gpus: number; idle: number; cpus: number }>): RunnerStatus => ({
  ok: true,
  version: "x",
  time: 0,
  slots: { total: 2, running: 2 - (o.free ?? 2), free: o.free ?? 2 },
  queue: o.queue ?? 0,
  gpus: { count: o.gpus ?? 0, idle: o.idle ?? 0 },
  cpus: o.cpus ?? 4,
});

describe("pool placement", () => {
  it("splits in proportion to weight, every rollout exactly once, in order", () => {
    const out = placeRollouts(refs(10), [
      { member: "a", weight: 3 },
      { member: "b", weight: 1 },
      { member: "c", weight: 1 },
    ]);
    assert.deepEqual(
      out.map((o) => [o.member, o.rollouts.length]),
      [
        ["a", 6],
        ["b", 2],
        ["c", 2],
      ],
    );
    assert.deepEqual(
      out.flatMap((o) => o.rollouts.map((r) => r.key)),
      refs(10).map((r) => r.key),
    );
  });

  it("gives a weight-0 member nothing, and splits evenly when every weight is 0", () => {
    assert.deepEqual(
      placeRollouts(refs(4), [
        { member: "a", weight: 0 },
        { member: "b", weight: 2 },
      ]).map((o) => [o.member, o.rollouts.length]),
      [["b", 4]],
    );
    assert.deepEqual(
      placeRollouts(refs(5), [
        { member: "a", weight: 0 },
        { member: "b", weight: 0 },
      ]).map((o) => [o.member, o.rollouts.length]),
      [
        ["a", 3],
        ["b", 2],
      ],
    );
    assert.deepEqual(placeRollouts(refs(3), []), []);
  });

  it("weighs idle GPUs where the pool has GPUs, CPUs where not, and shrinks a busy member by its queue", () => {
    assert.equal(memberWeight(status({ gpus: 8, idle: 6 }), true), 6);
    assert.equal(memberWeight(status({ gpus: 8, idle: 0 }), true), 0);
    assert.equal(memberWeight(status({ cpus: 16 }), false), 16);
    const busy = memberWeight(status({ free: 0, queue: 3, cpus: 16 }), false);
    const lessBusy = memberWeight(status({ free: 0, queue: 0, cpus: 16 }), false);
    assert.ok(busy < lessBusy && lessBusy < 16);
  });

  it("names the samples of each task for a shard", () => {
    assert.deepEqual(samplesConfig([refs(8)[1], refs(8)[2], refs(8)[5]].filter((r): r is RolloutRef => r !== undefined)), {
      tasks: ["t0", "t1"],
      samples: { t0: [1, 2], t1: [1] },
    });
    assert.deepEqual(samplesOf("t0", { k: 3, samples: { t0: [4, 1, 4] } }), [1, 4]);
    assert.deepEqual(samplesOf("t9", { k: 3, samples: { t0: [4] } }), [0, 1, 2]);
  });
});

describe("rlenv run --only-samples", () => {
  it("reads task → sample numbers, and names what is wrong", () => {
    assert.deepEqual(parseOnlySamples('{"t0":[0,3],"t1":[2]}'), { t0: [0, 3], t1: [2] });
    assert.throws(() => parseOnlySamples("{t0:[0]}"), /^Error: --only-samples: not JSON/);
    assert.throws(() => parseOnlySamples('{"t0":[-1]}'), /--only-samples: t0\.0: /);
    assert.throws(() => parseOnlySamples('{"t0":[]}'), /--only-samples: t0: /);
    assert.throws(() => parseOnlySamples("[1]"), /--only-samples: /);
  });
});

describe("rollout claims", () => {
  it("keeps the first finished copy, records a later one, and ignores rollouts of no part of the job", () => {
    const c = new RolloutClaims(new Set(["a.s0", "a.s1"]));
    assert.equal(c.offer("a.s0", { shard: "s0", member: "r0", file: "x", at: 1 }), "kept");
    assert.equal(c.offer("a.s0", { shard: "s3", member: "r1", file: "y", at: 2 }), "duplicate");
    assert.equal(c.offer("b.s0", { shard: "s3", member: "r1", file: "z", at: 2 }), "unexpected");
    assert.equal(c.get("a.s0")?.file, "x");
    assert.deepEqual(c.duplicates, [{ rollout: "a.s0", kept: { shard: "s0", member: "r0" }, dropped: { shard: "s3", member: "r1" } }]);
    assert.equal(c.complete, false);
    c.offer("a.s1", { shard: "s3", member: "r1", file: "w", at: 3 });
    assert.equal(c.complete, true);
  });
});

describe("pools in runners.yaml", () => {
  const file = (text: string) => {
    const f = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-pools-")), "runners.yaml");
    writeFileSync(f, text);
    return f;
  };
  it("reads a pool with its defaults", () => {
    const { pools } = readPools(
      file("runners:\n  a: { url: http://127.0.0.1:1 }\n  b: { url: http://127.0.0.1:2 }\npools:\n  lab: { members: [a, b] }\n"),
    );
    assert.deepEqual(pools.lab, { members: ["a", "b"], heartbeat_s: 10, stall_s: 120, max_failovers: 3 });
  });
  it("names the file, line and field of an unknown member, a repeated one and a bad setting", () => {
    const f1 = file("runners:\n  a: { url: http://127.0.0.1:1 }\npools:\n  lab:\n    members:\n      - a\n      - ghost\n");
    assert.throws(
      () => readPools(f1),
      new RegExp(`^PoolConfigError: ${f1}:7: pools\\.lab\\.members\\.1: no runner "ghost" under runners: \\(known: a\\)`),
    );
    const f2 = file("runners:\n  a: { url: http://127.0.0.1:1 }\npools:\n  lab:\n    members: [a, a]\n");
    assert.throws(() => readPools(f2), /:5: pools\.lab\.members\.1: "a" is named twice/);
    const f3 = file("runners:\n  a: { url: http://127.0.0.1:1 }\npools:\n  lab:\n    members: [a]\n    heartbeat_s: -1\n");
    assert.throws(() => readPools(f3), new RegExp(`${f3}:6: pools\\.lab\\.heartbeat_s: `));
  });
});

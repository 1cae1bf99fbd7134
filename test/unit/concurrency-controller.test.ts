import assert from "node:assert/strict";
import { test } from "node:test";
import { AdaptiveConcurrency } from "../../src/core/rollout/concurrency-controller";
import { Limiter } from "../../src/core/rollout/limiter";
import type { ConcurrencyDecision } from "../../src/core/schema/report";

/**
 * A discrete-event simulation in virtual time (no timers, no wall clock): rollouts of `turns`
 * turns, each a request to a batching server (processor sharing; `capacity` served at the base
 * latency, past it slower, and total throughput falling as a preempting KV cache's does) and a
 * sandbox step as long as the base latency. New rollouts start while fewer than the
 * controller's limit are in flight. Returns the limits it chose.
 */
function simulate(capacity: number, opts: { until?: number; room?: () => "room" | "full" | "short" } = {}): ConcurrencyDecision[] {
  const base = 100;
  const turns = 6;
  let now = 0;
  const decisions: ConcurrencyDecision[] = [];
  const ctl = new AdaptiveConcurrency({
    max: 256,
    now: () => now,
    onDecision: (d) => decisions.push(d),
    hostHasRoom: opts.room ?? (() => "room"),
  });
  const rate = (n: number) => (Math.min(n, capacity) / base) * (n <= capacity ? 1 : 1 / (1 + (0.25 * (n - capacity)) / capacity));
  type Rollout = { turn: number; work: number | null; sandboxUntil: number | null; sent: number };
  const rollouts: Rollout[] = [];
  let step = 0;
  const startRollouts = () => {
    while (rollouts.length < ctl.limit) rollouts.push({ turn: 0, work: 1, sandboxUntil: null, sent: now });
  };
  startRollouts();
  while (now < (opts.until ?? 120_000)) {
    const serving = rollouts.filter((r) => r.work !== null);
    const each = serving.length ? rate(serving.length) / serving.length : 0;
    const nextServe = serving.length ? Math.min(...serving.map((r) => r.work! / each)) : Number.POSITIVE_INFINITY;
    const nextSandbox = Math.min(...rollouts.map((r) => (r.sandboxUntil === null ? Number.POSITIVE_INFINITY : r.sandboxUntil - now)));
    const dt = Math.min(nextServe, nextSandbox);
    now += dt;
    for (const r of serving) r.work! -= dt * each;
    for (const r of [...rollouts]) {
      if (r.work !== null && r.work <= 1e-9) {
        r.work = null;
        // A deterministic ±20% spread of sandbox steps.
        r.sandboxUntil = now + base * (0.8 + 0.4 * (((step++ * 7919) % 101) / 100));
        ctl.reply(now - r.sent);
      } else if (r.sandboxUntil !== null && r.sandboxUntil <= now) {
        r.sandboxUntil = null;
        if (++r.turn >= turns) rollouts.splice(rollouts.indexOf(r), 1);
        else {
          r.work = 1;
          r.sent = now;
        }
      }
    }
    startRollouts();
  }
  return decisions;
}

/** The limit most of the last half of the run was spent at. */
function settled(ds: ConcurrencyDecision[]): number {
  const late = ds.filter((d) => d.t_ms > ds[ds.length - 1]!.t_ms / 2).map((d) => d.limit);
  return late.sort((a, b) => a - b)[Math.floor(late.length / 2)]!;
}

test("auto concurrency settles near a batching server's knee (twice its capacity with sandboxes as slow as the model), never told it", () => {
  // Half the time a rollout waits on the sandbox, so the server is full at twice its capacity in flight.
  for (const capacity of [4, 16, 48]) {
    const limit = settled(simulate(capacity));
    assert.ok(limit >= 1.5 * capacity && limit <= 3 * capacity, `capacity ${capacity}: settled at ${limit}`);
  }
});

test("auto concurrency grows no further when host memory is full, and gives sandboxes back when it is short", () => {
  const full = simulate(64, { until: 30_000, room: () => "full" });
  assert.ok(
    full.every((d) => d.limit <= 4),
    full.map((d) => d.limit).join(" "),
  );
  const short = simulate(64, { until: 30_000, room: () => "short" });
  assert.equal(short[short.length - 1]!.limit, 1);
  assert.match(short[0]!.reason, /memory short/);
});

test("a limiter's capacity can change: a raise lets waiters in at once, a cut holds new entries until holders leave", async () => {
  const l = new Limiter(1);
  const order: string[] = [];
  let release!: () => void;
  const first = l.run(() => new Promise<void>((r) => (release = r)));
  const second = l.run(async () => {
    order.push("second");
  });
  await Promise.resolve();
  assert.equal(order.length, 0);
  l.setCapacity(2);
  await second;
  assert.deepEqual(order, ["second"]);
  l.setCapacity(1);
  let release2!: () => void;
  const third = l.run(() => new Promise<void>((r) => (release2 = r)));
  const fourth = l.run(async () => {
    order.push("fourth");
  });
  release();
  await first;
  await Promise.resolve();
  // The first left, but the cut to 1 keeps the fourth out while the third holds the only slot.
  assert.equal(l.inFlight, 1);
  assert.deepEqual(order, ["second"]);
  release2();
  await Promise.all([third, fourth]);
  assert.deepEqual(order, ["second", "fourth"]);
  assert.throws(() => l.setCapacity(0), /at least 1/);
});

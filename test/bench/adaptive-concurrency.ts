/**
 * Adaptive concurrency benchmark: `npx tsx test/bench/adaptive-concurrency.ts [seconds]`.
 *
 * A scripted server modelled on a batching inference server (continuous batching, shared
 * by the requests in flight): up to CAPACITY requests are served together at the base
 * latency, so throughput grows with concurrency; past it each request's share shrinks (latency
 * grows with the queue) and, as a KV cache that starts preempting, total throughput slowly
 * falls. Each rollout alternates a policy request with a sandbox step as slow as the model
 * (the base latency, ±20%), TURNS times. The rollouts go through the engine's own parts: the
 * rollout gate (a Limiter, resized by AdaptiveConcurrency under auto), the policy limiter, and
 * the worker loop of run-environment.ts.
 *
 * Measured in one run, side by side for the same wall time: policy replies per second under
 * each fixed concurrency of a sweep, and under `auto` (which is never told the capacity and
 * starts at 4). Figure: auto's throughput over the best fixed setting's (goal ≥ 0.95), and each
 * setting's policy utilisation (the share of the server's peak throughput it got).
 * Prints figures; asserts nothing about time.
 */
import { setMaxListeners } from "node:events";
import { AdaptiveConcurrency } from "../../src/core/rollout/concurrency-controller";
import { Limiter } from "../../src/core/rollout/limiter";
import type { ConcurrencyDecision } from "../../src/core/schema/report";

const SECONDS = Number(process.argv[2] ?? 30);
const BASE_MS = 100;
const CAPACITY = 16;
/** Throughput at 2× capacity is 1 / (1 + PREEMPT) of the peak. */
const PREEMPT = 0.25;
const TURNS = 6;
const SWEEP = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64];
const MAX = 128;

/** Processor sharing: each request needs one unit of work; n in flight share the server's rate. */
class BatchingServer {
  private readonly inFlight = new Map<number, { left: number; done: () => void }>();
  private last = performance.now();
  private timer: NodeJS.Timeout | null = null;
  private nextId = 0;
  replies = 0;

  /** Units of work a millisecond, all requests together. */
  private rate(n: number): number {
    const served = Math.min(n, CAPACITY) / BASE_MS;
    return n <= CAPACITY ? served : served / (1 + (PREEMPT * (n - CAPACITY)) / CAPACITY);
  }

  private advance(): void {
    const now = performance.now();
    const n = this.inFlight.size;
    if (n > 0) {
      const each = ((now - this.last) * this.rate(n)) / n;
      for (const [id, r] of this.inFlight) {
        r.left -= each;
        if (r.left <= 1e-6) {
          this.inFlight.delete(id);
          this.replies++;
          r.done();
        }
      }
    }
    this.last = now;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const n = this.inFlight.size;
    if (n === 0) return;
    const least = Math.min(...[...this.inFlight.values()].map((r) => r.left));
    const ms = (least * n) / this.rate(n);
    this.timer = setTimeout(
      () => {
        this.advance();
        this.schedule();
      },
      Math.max(0, ms),
    );
  }

  request(): Promise<void> {
    this.advance();
    return new Promise<void>((done) => {
      this.inFlight.set(this.nextId++, { left: 1, done });
      this.schedule();
    });
  }
}

/** The same seeded jitter for every setting. */
function jitter(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return 0.8 + 0.4 * (a / 4294967296);
  };
}

interface Outcome {
  label: string;
  throughput: number;
  rollouts: number;
  decisions: ConcurrencyDecision[];
}

/** One setting for SECONDS: rollouts through the gate as run-environment.ts runs them. */
async function runSetting(label: string, fixed: number | null): Promise<Outcome> {
  const server = new BatchingServer();
  const decisions: ConcurrencyDecision[] = [];
  const adaptive = fixed === null ? new AdaptiveConcurrency({ max: MAX, onDecision: (d) => decisions.push(d) }) : null;
  const slots = adaptive ? adaptive.slots : new Limiter(fixed!);
  const policyLimit = new Limiter(MAX);
  const rand = jitter(7);
  const stop = new AbortController();
  let rollouts = 0;
  const rollout = async () => {
    for (let turn = 0; turn < TURNS && !stop.signal.aborted; turn++) {
      const call = () => server.request();
      await policyLimit.run(adaptive ? () => adaptive.timed(call) : call);
      await new Promise((r) => setTimeout(r, BASE_MS * rand()));
    }
    rollouts++;
  };
  const worker = async () => {
    while (!stop.signal.aborted) {
      try {
        await slots.run(rollout, stop.signal);
      } catch {
        return;
      }
    }
  };
  const workers = Array.from({ length: fixed ?? MAX }, worker);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const replies = server.replies;
  stop.abort(new Error("time"));
  await Promise.allSettled(workers);
  return { label, throughput: replies / SECONDS, rollouts, decisions };
}

async function main(): Promise<void> {
  setMaxListeners(4 * MAX);
  const peak = (CAPACITY / BASE_MS) * 1000;
  console.log(
    `batching server: capacity ${CAPACITY} at ${BASE_MS} ms (peak ${peak} replies/s), sandbox steps ${BASE_MS} ms ±20%, ${TURNS} turns; ${SECONDS} s a setting, all at once`,
  );
  // All settings run side by side, each with its own server: the same wall time and machine load for each.
  const outcomes = await Promise.all([...SWEEP.map((c) => runSetting(`fixed ${c}`, c)), runSetting("auto", null)]);
  const fixed = outcomes.filter((o) => o.label !== "auto");
  const best = fixed.reduce((a, b) => (b.throughput > a.throughput ? b : a));
  for (const o of outcomes)
    console.log(
      `  ${o.label.padEnd(9)} ${o.throughput.toFixed(1).padStart(6)} replies/s  utilisation ${(o.throughput / peak).toFixed(3)}  ${o.rollouts} rollouts`,
    );
  const auto = outcomes.find((o) => o.label === "auto")!;
  const last = auto.decisions[auto.decisions.length - 1];
  console.log(
    `auto: ${auto.decisions.length} decisions; limits ${auto.decisions.map((d) => `${d.limit}@${(d.t_ms / 1000).toFixed(1)}s`).join(" ")}`,
  );
  if (last) console.log(`auto ended at ${last.limit} (${last.reason})`);
  console.log(
    `auto / best fixed (${best.label}): ${(auto.throughput / best.throughput).toFixed(3)} (goal ≥ 0.95), without being told the capacity`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

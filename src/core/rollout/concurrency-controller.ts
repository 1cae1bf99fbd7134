import { appendFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ConcurrencyDecision } from "../schema/report";
import { Limiter } from "./limiter";

export interface AdaptiveConcurrencyOptions {
  /** The most rollouts ever in flight (the run's `concurrency` under `--concurrency auto`). */
  max: number;
  /** Where it starts; default 4 (the old fixed default), at most `max`. */
  start?: number;
  /** Whether the host has CPU and memory to spare for more sandboxes; default: see `hostHasRoom`. */
  hostHasRoom?: () => "room" | "full" | "short";
  now?: () => number;
  onDecision?: (d: ConcurrencyDecision) => void;
}

/**
 * The host's verdict on memory: `short` (under 5% free: give sandboxes back), `full` (under
 * 10%: grow no further), else `room`. CPU is not asked here: the load average counts every
 * process of a shared machine, and a CPU our sandboxes saturate shows anyway as steps that
 * take longer, so that more rollouts in flight stop raising the policy's throughput.
 */
export function hostHasRoom(): "room" | "full" | "short" {
  const free = os.freemem() / os.totalmem();
  if (free < 0.05) return "short";
  if (free < 0.1) return "full";
  return "room";
}

/** A rise smaller than this is measurement noise, not a reason to keep more rollouts in flight. */
const GAIN = 0.05;

/**
 * `--concurrency auto`: how many rollouts are in flight, chosen from what the policy server
 * does rather than told. The server's throughput (replies a second) is measured over windows
 * of replies; while it rises the limit doubles (slow start); once it stops rising
 * the limit goes back to the best seen and then climbs the hill one step either side,
 * keeping a step only when throughput rises with it. Latency that climbs without more
 * throughput is exactly what a step back answers. The host's free memory caps the growth.
 * Every window's decision goes to `onDecision` (the run keeps them in concurrency.jsonl).
 */
export class AdaptiveConcurrency {
  /** The gate rollouts pass through: its capacity is the limit. */
  readonly slots: Limiter;
  private readonly max: number;
  private readonly now: () => number;
  private readonly room: () => "room" | "full" | "short";
  private readonly onDecision: (d: ConcurrencyDecision) => void;
  private readonly t0: number;
  private phase: "grow" | "climb" = "grow";
  private best: { limit: number; throughput: number } | null = null;
  /** In the climb: the limit being tried beside the best, and which side was tried last. */
  private probing = false;
  private side: 1 | -1 = 1;
  /** Windows to stay at the best before the next step: a step that fails costs throughput, so they grow apart. */
  private rest = 0;
  private restAfterFailure = 2;
  /** The lowest mean latency any window saw: the server's unloaded latency. */
  private floorLatency = Number.POSITIVE_INFINITY;
  private window = { start: 0, replies: 0, latency: 0, skip: 0 };

  constructor(opts: AdaptiveConcurrencyOptions) {
    this.max = Math.max(1, Math.floor(opts.max));
    this.now = opts.now ?? (() => performance.now());
    this.room = opts.hostHasRoom ?? hostHasRoom;
    this.onDecision = opts.onDecision ?? (() => {});
    this.t0 = this.now();
    this.slots = new Limiter(Math.min(this.max, Math.max(1, opts.start ?? 4)));
    this.resetWindow();
  }

  get limit(): number {
    return this.slots.capacity;
  }

  /** Wraps one policy request, timing it. */
  async timed<T>(fn: () => Promise<T>): Promise<T> {
    const t = this.now();
    try {
      return await fn();
    } finally {
      this.reply(this.now() - t);
    }
  }

  /** A policy reply came back after `latencyMs`. */
  reply(latencyMs: number): void {
    const w = this.window;
    // Replies to requests sent under the old limit say little about the new one.
    if (w.skip > 0) {
      w.skip--;
      if (w.skip === 0) w.start = this.now();
      return;
    }
    w.replies++;
    w.latency += latencyMs;
    if (w.replies < this.windowSize()) return;
    const elapsed = (this.now() - w.start) / 1000;
    const throughput = elapsed > 0 ? w.replies / elapsed : 0;
    const latency = w.latency / w.replies;
    const next = this.choose(throughput, latency);
    if (next) this.set(next.limit, throughput, latency, next.reason);
  }

  /** Enough replies that each rollout in flight answered a few times; more once climbing, where the steps are small. */
  private windowSize(): number {
    return Math.max(8, (this.phase === "grow" ? 2 : 3) * this.limit);
  }

  private resetWindow(): void {
    // Right after a change the rollouts let in send their first requests at once, a burst that
    // would flatter the new limit: a reply per rollout in flight passes before the count starts.
    this.window = { start: this.now(), replies: 0, latency: 0, skip: this.limit };
  }

  private set(limit: number, throughput: number, latency: number, reason: string): void {
    const next = Math.max(1, Math.min(this.max, Math.round(limit)));
    this.slots.setCapacity(next);
    this.onDecision({
      t_ms: Math.max(0, this.now() - this.t0),
      limit: next,
      throughput: Math.round(throughput * 1000) / 1000,
      latency_ms: Math.round(latency * 10) / 10,
      reason,
    });
    this.resetWindow();
  }

  /** The limit for the next window, and why. */
  private choose(throughput: number, latency: number): { limit: number; reason: string } | null {
    const current = this.limit;
    const host = this.room();
    if (host === "short") return { limit: Math.min(current - 1, current * 0.75), reason: "host memory short: fewer sandboxes" };
    const best = this.best;
    this.floorLatency = Math.min(this.floorLatency, latency);
    if (this.phase === "grow") {
      if (!best || throughput > best.throughput * (1 + GAIN)) {
        this.best = { limit: current, throughput };
        if (host === "full") {
          this.phase = "climb";
          return { limit: current, reason: "host memory full: holding" };
        }
        if (current >= this.max) {
          this.phase = "climb";
          return { limit: current, reason: "at the maximum" };
        }
        // Latency already above the unloaded one: the server is near its batch capacity, so smaller steps.
        if (latency > 1.1 * this.floorLatency)
          return { limit: current * 1.25, reason: "throughput rose, latency too: a quarter more in flight" };
        return { limit: current * 2, reason: "throughput rose: twice as many in flight" };
      }
      this.phase = "climb";
      return { limit: best.limit, reason: `throughput flat (best ${best.throughput.toFixed(1)}/s at ${best.limit}): back` };
    }
    // Climbing: a window at a step beside the best, then one at the best to refresh its figure.
    if (!best) return null;
    if (this.probing) {
      this.probing = false;
      // Up must earn its keep; down is kept unless it costs throughput: as much done with fewer in flight is
      // lower latency and less memory, and noise that flatters a step up would otherwise ratchet the limit up.
      const kept = current > best.limit ? throughput > best.throughput * (1 + GAIN) : throughput >= best.throughput * (1 - GAIN / 5);
      if (kept) {
        this.best = { limit: current, throughput };
        this.restAfterFailure = 2;
        return { limit: current, reason: `step to ${current} raised throughput: kept` };
      }
      this.side = this.side === 1 ? -1 : 1;
      this.rest = this.restAfterFailure;
      this.restAfterFailure = Math.min(16, this.restAfterFailure * 2);
      return { limit: best.limit, reason: `step to ${current} did not help: back to ${best.limit}` };
    }
    // A window at the best: averaged into its figure, which the next step must beat.
    this.best = { limit: current, throughput: best.limit === current ? (best.throughput + throughput) / 2 : throughput };
    if (this.rest > 0) {
      this.rest--;
      return { limit: current, reason: "holding" };
    }
    const step = Math.max(1, Math.round(current / 8));
    const side = host === "full" ? -1 : this.side;
    const probe = Math.max(1, Math.min(this.max, current + side * step));
    if (probe === current) {
      this.side = this.side === 1 ? -1 : 1;
      return { limit: current, reason: "holding" };
    }
    this.probing = true;
    return { limit: probe, reason: `trying ${probe}` };
  }
}

/** Where a run with adaptive concurrency appends its decisions, one JSON object a line. */
export const CONCURRENCY_FILE = "concurrency.jsonl";

/** The run engine's controller: up to `max` rollouts in flight, each decision appended to the run folder as it is made. */
export function adaptiveConcurrencyFor(runDir: string, max: number): AdaptiveConcurrency {
  const file = path.join(runDir, CONCURRENCY_FILE);
  return new AdaptiveConcurrency({
    max,
    onDecision: (d) => {
      try {
        appendFileSync(file, `${JSON.stringify(d)}\n`);
      } catch {
        // A decision that could not be written is lost from the record; the run goes on.
      }
    },
  });
}

import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ServeMetrics } from "./serve-context";
import type { ServeErrorKind } from "./session-types";

/** Seconds buckets: a warm exec answers in ms, a test suite in tens of seconds. */
const STEP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * `rlenv serve`'s /metrics (Prometheus text): sessions opened, closed (and why) and open now,
 * steps and their latency, errors by kind, each labelled by protocol (openenv, nemo-gym, rollouts).
 */
export class PromServeMetrics implements ServeMetrics {
  readonly registry = new Registry();
  private readonly opened: Counter<"protocol">;
  private readonly closed: Counter<"protocol" | "why">;
  private readonly active: Gauge<"protocol">;
  private readonly steps: Counter<"protocol">;
  private readonly stepSeconds: Histogram<"protocol">;
  private readonly errors: Counter<"protocol" | "kind">;

  constructor() {
    const registers = [this.registry];
    this.opened = new Counter({ name: "rlenv_serve_sessions_opened_total", help: "Sessions opened", labelNames: ["protocol"], registers });
    this.closed = new Counter({
      name: "rlenv_serve_sessions_closed_total",
      help: "Sessions closed, by why (client, idle, shutdown, error)",
      labelNames: ["protocol", "why"],
      registers,
    });
    this.active = new Gauge({ name: "rlenv_serve_sessions", help: "Sessions open now", labelNames: ["protocol"], registers });
    this.steps = new Counter({ name: "rlenv_serve_steps_total", help: "Steps played", labelNames: ["protocol"], registers });
    this.stepSeconds = new Histogram({
      name: "rlenv_serve_step_seconds",
      help: "Step latency as the server saw it, request in to reply out",
      labelNames: ["protocol"],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.errors = new Counter({
      name: "rlenv_serve_errors_total",
      help: "Error replies, by kind",
      labelNames: ["protocol", "kind"],
      registers,
    });
  }

  sessionOpened(protocol: string): void {
    this.opened.inc({ protocol });
    this.active.inc({ protocol });
  }

  sessionClosed(protocol: string, why: "client" | "idle" | "shutdown" | "error"): void {
    this.closed.inc({ protocol, why });
    this.active.dec({ protocol });
  }

  step(protocol: string, ms: number): void {
    this.steps.inc({ protocol });
    this.stepSeconds.observe({ protocol }, ms / 1000);
  }

  error(protocol: string, kind: ServeErrorKind | "internal"): void {
    this.errors.inc({ protocol, kind });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

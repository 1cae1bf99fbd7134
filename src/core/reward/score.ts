import type { Verifier, VerifyContext } from "../model/domain";
import { VerifierInfraError } from "../model/errors";
import { abortReason } from "../util/backoff";
import { withDeadline } from "../util/deadline";
import type { RewardComponent } from "../schema/trajectory";
import type { VerifierConfig } from "../schema/verifier";
import { findVerifier, registeredVerifierTypes } from "./verifier-table";

export interface Score {
  /** Weighted mean of the components, in [0, 1]. */
  total: number;
  components: RewardComponent[];
}

/** Default verifier time limit when the config gives none: generous, since test suites are slow. */
export const DEFAULT_VERIFIER_TIMEOUT_MS = 300_000;

/** Run one verifier under its own deadline; a throw, a timeout or a bad score becomes a recorded error scoring 0. */
export async function runVerifier(
  config: VerifierConfig,
  ctx: Omit<VerifyContext, "timeoutMs">,
  domainVerifiers: readonly Verifier[] = [],
  defaultTimeoutMs = DEFAULT_VERIFIER_TIMEOUT_MS,
): Promise<RewardComponent> {
  const head = { name: config.name ?? config.type, type: config.type, weight: config.weight };
  const started = performance.now();
  const timeoutMs = config.timeout !== undefined ? config.timeout * 1000 : defaultTimeoutMs;
  const verifier = findVerifier(config.type, domainVerifiers);
  if (!verifier) {
    return {
      ...head,
      score: 0,
      passed: false,
      error: `no verifier of type '${config.type}' is available (have: ${registeredVerifierTypes().join(", ")}; domain plugins add others)`,
      duration_ms: 0,
    };
  }
  const ac = new AbortController();
  const onParent = () => ac.abort(abortReason(ctx.signal));
  ctx.signal.addEventListener("abort", onParent, { once: true });
  try {
    // The deadline does not trust the verifier to honour its signal: the race settles regardless.
    const done = await withDeadline(verifier.verify(config, { ...ctx, signal: ac.signal, timeoutMs }), timeoutMs);
    if (!done.ok) {
      const e = new Error(`verifier timed out after ${timeoutMs / 1000} s`);
      ac.abort(e);
      throw e;
    }
    const r = done.value;
    if (typeof r.score !== "number" || !Number.isFinite(r.score) || r.score < 0 || r.score > 1)
      throw new Error(`verifier returned score ${String(r.score)}, outside [0, 1]`);
    return { ...head, ...r, duration_ms: performance.now() - started };
  } catch (e) {
    if (ctx.signal.aborted) throw abortReason(ctx.signal);
    // The judge's server down is not a score of 0: it ends the rollout as an infra error.
    if (e instanceof VerifierInfraError) throw e;
    const err = e as Error;
    return { ...head, score: 0, passed: false, error: err.message || String(e), duration_ms: performance.now() - started };
  } finally {
    ctx.signal.removeEventListener("abort", onParent);
  }
}

/** Weighted mean; every component is kept, including failed ones. Zero total weight scores 0. */
export function aggregate(components: readonly RewardComponent[]): number {
  const w = components.reduce((s, c) => s + c.weight, 0);
  if (w === 0) return 0;
  const total = components.reduce((s, c) => s + c.weight * c.score, 0) / w;
  return Math.min(1, Math.max(0, total));
}

/** One of several named scores a single verifier run produced (returned as `split`), each becoming a component of its own. */
export interface SplitScore {
  name: string;
  score: number;
}

/** Run the manifest's reward list in order and aggregate. */
export async function scoreRollout(
  configs: readonly VerifierConfig[],
  ctx: Omit<VerifyContext, "timeoutMs">,
  domainVerifiers: readonly Verifier[] = [],
  defaultTimeoutMs?: number,
): Promise<Score> {
  const components: RewardComponent[] = [];
  for (const c of configs) {
    const { split, ...one } = (await runVerifier(c, ctx, domainVerifiers, defaultTimeoutMs)) as RewardComponent & { split?: SplitScore[] };
    // A verifier whose one run yields several named rewards (Harbor's reward.json) gives each its own component.
    if (Array.isArray(split) && split.length > 0)
      for (const s of split)
        components.push({ ...one, name: s.name, score: s.score, passed: s.score >= 1, duration_ms: one.duration_ms ?? 0 });
    else components.push(one);
  }
  return { total: aggregate(components), components };
}

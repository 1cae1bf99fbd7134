import type { FlakinessResult, ParityResult } from "../schema/audit";
import type { AuditOutcome } from "./run-batch";

type Backend = FlakinessResult["backend"];

/**
 * The oracle's rewards over N runs on one backend (rollouts in fresh sandboxes, then any reruns
 * of the verifier's commands on the oracle's files in one sandbox): flaky when the judged ones
 * are not all identical. Rollouts that were not judged (infra errors) are counted apart: they
 * say nothing about the verifier.
 */
export function flakinessOf(backend: Backend, runs: AuditOutcome[], reruns: Array<number | null> = []): FlakinessResult {
  const rewards = [...runs.map((r) => r.reward), ...reruns];
  const judged = rewards.filter((r): r is number => r !== null);
  return {
    backend,
    rewards,
    flaky: new Set(judged).size > 1,
    not_judged: rewards.length - judged.length,
    trajectories: runs.map((r) => r.file),
    ...(reruns.length > 0 ? { reruns: reruns.length } : {}),
  };
}

/** The oracle on two backends must agree; when it does not, the first component that differs is named. */
export function parityOf(a: { backend: Backend; runs: AuditOutcome[] }, b: { backend: Backend; runs: AuditOutcome[] }): ParityResult {
  const first = (runs: AuditOutcome[]) => runs.find((r) => r.reward !== null);
  const x = first(a.runs);
  const y = first(b.runs);
  const backends: ParityResult["backends"] = [a.backend, b.backend];
  if (!x || !y) return { backends, agree: null };
  const names = [...new Set([...x.components.map((c) => c.name), ...y.components.map((c) => c.name)])];
  for (const name of names) {
    const sa = x.components.find((c) => c.name === name)?.score ?? null;
    const sb = y.components.find((c) => c.name === name)?.score ?? null;
    if (sa !== sb) return { backends, agree: false, first_difference: { component: name, a: sa, b: sb } };
  }
  if (x.reward !== y.reward) return { backends, agree: false, first_difference: { component: "total", a: x.reward, b: y.reward } };
  return { backends, agree: true };
}

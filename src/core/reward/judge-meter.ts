import { AsyncLocalStorage } from "node:async_hooks";
import type { JudgeUsage } from "../schema/trajectory";

export type { JudgeUsage };

export function emptyJudgeUsage(): JudgeUsage {
  return { calls: 0, prompt_tokens: 0, completion_tokens: 0 };
}

// The rollout being judged, carried through the verifiers' async calls without a parameter in
// every verifier and comparator: judge-client counts into whichever rollout's judging called it.
const current = new AsyncLocalStorage<JudgeUsage>();

/** Runs `fn` (a rollout's judging) with the judge calls it makes counted into `usage`. */
export function meteringJudges<T>(usage: JudgeUsage, fn: () => Promise<T>): Promise<T> {
  return current.run(usage, fn);
}

/** One answered judge request, with the usage the server reported (none: counted, no tokens). */
export function countJudgeCall(usage: { prompt_tokens?: number; completion_tokens?: number } | undefined | null): void {
  const u = current.getStore();
  if (!u) return;
  u.calls += 1;
  u.prompt_tokens += usage?.prompt_tokens ?? 0;
  u.completion_tokens += usage?.completion_tokens ?? 0;
}

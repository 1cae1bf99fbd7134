import type { VerifierConfig } from "../schema/verifier";

const keyOf = (v: VerifierConfig) => v.name ?? v.type;

/**
 * The reward list a task is graded by: the manifest's, with the task's own `reward`
 * components merged in. A task component whose name (else its type) matches a manifest
 * component replaces it in place; any other is added at the end. So one task can carry its
 * own script verifier, or a different weight, without an environment of its own.
 */
export function rewardFor(manifest: readonly VerifierConfig[], task: { reward?: readonly VerifierConfig[] | undefined }): VerifierConfig[] {
  const own = task.reward ?? [];
  if (own.length === 0) return [...manifest];
  const byKey = new Map(own.map((v) => [keyOf(v), v]));
  const merged = manifest.map((v) => {
    const o = byKey.get(keyOf(v));
    if (!o) return v;
    byKey.delete(keyOf(v));
    return o;
  });
  return [...merged, ...own.filter((v) => byKey.get(keyOf(v)) === v)];
}

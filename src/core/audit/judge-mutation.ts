import type { MutationResult } from "../schema/audit";
import type { MutationPlan } from "./audit-plan";
import type { MutationWorkbench } from "./mutate-code";
import type { AuditOutcome } from "./run-batch";

/** Killed, survived (with whether it is equivalent) or not judged, for every mutant of a task. */
export async function judgeMutation(
  plan: MutationPlan,
  outcomes: Map<string, AuditOutcome[]>,
  reference: number | null,
): Promise<MutationResult> {
  const result: MutationResult = {
    kind: plan.kind,
    reference_reward: reference,
    mutants: plan.equivalentUpFront,
    killed: 0,
    survived: 0,
    equivalent: plan.equivalentUpFront,
    not_judged: 0,
    score: null,
    survivors: [],
    rejected_correct: [],
    ...(plan.note ? { note: plan.note } : {}),
  };
  const equivalence: EquivalenceBench = { plan };
  for (const item of plan.items) {
    if (item.screenKilled) {
      result.mutants++;
      result.killed++;
      result.screened_killed = (result.screened_killed ?? 0) + 1;
      continue;
    }
    const o = outcomes.get(item.id)?.[0];
    if (item.expect === "accept") {
      if (o && o.reward !== null && reference !== null && o.reward < reference) {
        result.rejected_correct.push({
          id: item.id,
          description: item.description,
          answer: item.answer,
          reward: o.reward,
          expected: `${reference}, as the gold answer`,
          trajectory: o.file,
        });
      }
      continue;
    }
    result.mutants++;
    if (!o || o.reward === null || reference === null) {
      result.not_judged++;
      continue;
    }
    if (o.reward < reference) {
      result.killed++;
      continue;
    }
    if (await isEquivalent(equivalence, item)) {
      result.equivalent++;
      continue;
    }
    result.survived++;
    result.survivors.push({
      id: item.id,
      operator: item.operator,
      description: item.description,
      diff: item.diff,
      reward: o.reward,
      trajectory: o.file,
    });
  }
  await equivalence.bench?.close();
  const judged = result.mutants - result.equivalent - result.not_judged;
  result.score = judged > 0 ? result.killed / judged : null;
  return result;
}

/** The workbench a task's survivors are compared with the gold in, opened for the first one the screen took no outputs of. */
interface EquivalenceBench {
  plan: MutationPlan;
  bench?: MutationWorkbench;
  goldOutputs?: string | null;
}

/** A survivor is equivalent only when it computes what the gold does on the task's own inputs. */
async function isEquivalent(eq: EquivalenceBench, item: MutationPlan["items"][number]): Promise<boolean> {
  const { plan } = eq;
  const taken = plan.outputs?.mutants.has(item.id) ? plan.outputs : undefined;
  if (taken) {
    const mine = taken.mutants.get(item.id) ?? null;
    return taken.gold !== null && mine !== null && mine === taken.gold;
  }
  if (!plan.bench || !item.code) return false;
  try {
    eq.bench ??= await plan.bench();
    const bench = eq.bench;
    eq.goldOutputs ??= await bench.outputs(bench.gold);
    const mine = await bench.outputs(bench.withMutant(item.code));
    await bench.writeGold();
    return eq.goldOutputs !== null && mine !== null && mine === eq.goldOutputs;
  } catch {
    // Could not tell: it stays a survivor.
    return false;
  }
}

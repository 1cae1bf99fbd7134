import type { LoadedTask } from "../model/environment";
import type { FlakinessResult, MutationResult, ParityResult, ProbeOutcome, TaskAudit } from "../schema/audit";
import { type Audit, type Backend, fmt, type MutationPlan, type ProbeItem } from "./audit-plan";
import { flakinessOf, parityOf } from "./flakiness";
import { judgeMutation } from "./judge-mutation";
import type { AuditOutcome } from "./run-batch";

/** What the phases found, for the verdict of each task. */
export interface Findings {
  probeItems: ProbeItem[];
  probeRuns: Map<Backend, Map<string, AuditOutcome[]>>;
  probeScreened: Map<Backend, Set<string>>;
  plans: MutationPlan[];
  mutantRuns: Map<string, AuditOutcome[]>;
  mutations: Map<string, MutationResult>;
}

/** Parity of the oracle's runs on the first two backends; a disagreement is a problem. */
function parityFor(a: Audit, task: LoadedTask, problems: string[]): ParityResult | null {
  const [x, y] = a.opts.providers;
  if (!x || !y) return null;
  const parity = parityOf(
    { backend: x.backend, runs: a.oracleRuns.get(x.backend)?.get(task.id) ?? [] },
    { backend: y.backend, runs: a.oracleRuns.get(y.backend)?.get(task.id) ?? [] },
  );
  if (parity.agree === false && parity.first_difference) {
    const d = parity.first_difference;
    problems.push(`backend parity: ${d.component} scored ${fmt(d.a)} on ${x.backend} and ${fmt(d.b)} on ${y.backend}`);
  }
  return parity;
}

/** Each probe's outcome on each backend for a task; a finding is a problem. */
function probeOutcomes(a: Audit, task: LoadedTask, f: Findings, problems: string[]): ProbeOutcome[] {
  const probes: ProbeOutcome[] = [];
  for (const { backend } of a.opts.providers) {
    for (const item of f.probeItems.filter((p) => p.task.id === task.id)) {
      if (f.probeScreened.get(backend)?.has(item.id)) {
        probes.push({ probe: item.probe, backend, status: "rejected", reward: 0, trajectory: "", screened: true });
        continue;
      }
      const o = f.probeRuns.get(backend)?.get(item.id)?.[0];
      if (!o) continue;
      const status = o.reward === null ? "not-judged" : o.reward > 0 ? "finding" : "rejected";
      probes.push({
        probe: item.probe,
        backend,
        status,
        reward: o.reward,
        ...(o.reason ? { reason: o.reason } : {}),
        trajectory: o.file,
      });
      if (status === "finding") problems.push(`probe ${item.probe} scored ${fmt(o.reward)} on ${backend} (trajectory ${o.file})`);
    }
  }
  return probes;
}

/** The task's mutation result; wrong solutions accepted, right answers rejected and a score below the bar are problems. */
async function mutationFor(
  a: Audit,
  task: LoadedTask,
  f: Findings,
  reference: number | null,
  problems: string[],
): Promise<MutationResult | null> {
  const plan = f.plans.find((p) => p.task.id === task.id);
  if (!plan) return null;
  const minScore = a.env.manifest.validation.audit.min_mutation_score;
  const mutation = f.mutations.get(task.id) ?? (await judgeMutation(plan, f.mutantRuns, reference));
  // A perturbed answer or scene is wrong by construction (no equivalent mutants to allow for): each one accepted is a misjudgement.
  if (mutation.kind !== "code")
    for (const sv of mutation.survivors)
      problems.push(`accepts a wrong ${mutation.kind === "scene" ? "scene" : "answer"}: ${sv.description} (reward ${fmt(sv.reward)})`);
  for (const r of mutation.rejected_correct) problems.push(`rejects a correct answer: ${r.description} (reward ${fmt(r.reward)})`);
  if (mutation.score !== null && mutation.score < minScore) {
    problems.push(
      `mutation score ${fmt(mutation.score)} is below ${minScore}: ${mutation.survived} of ${mutation.mutants - mutation.equivalent - mutation.not_judged} wrong solutions pass (${mutation.survivors
        .map((s) => s.description)
        .slice(0, 5)
        .join("; ")})`,
    );
  }
  return mutation;
}

/** One task's verdict from everything the phases found. */
export async function auditTask(a: Audit, task: LoadedTask, f: Findings): Promise<TaskAudit> {
  const problems: string[] = [];
  const flakiness: FlakinessResult[] = a.opts.providers.map(({ backend }) =>
    flakinessOf(backend, a.oracleRuns.get(backend)?.get(task.id) ?? [], a.reruns.get(backend)?.get(task.id) ?? []),
  );
  for (const fl of flakiness) {
    if (fl.flaky) problems.push(`flaky on ${fl.backend}: the oracle's rewards were ${fl.rewards.map(fmt).join(", ")}`);
  }
  const parity = parityFor(a, task, problems);
  const reference = flakiness.flatMap((fl) => fl.rewards).find((r) => r !== null) ?? null;
  if (reference === 0) problems.push("the oracle scores 0: nothing to audit the verifier against");
  // A task graded by a judge this machine has no endpoint for cannot be audited here: said, neither passed nor failed (as validate --run does).
  const oracleOutcomes = [...a.oracleRuns.values()].flatMap((m) => m.get(task.id) ?? []);
  const skipped = reference === null ? oracleOutcomes.find((r) => r.skipped)?.skipped : undefined;
  if (skipped) return { id: task.id, ok: true, problems: [], not_judged: skipped, flakiness, parity, mutation: null, probes: [] };
  // Infra errors judge nothing: a task no backend could judge is not a pass.
  if (reference === null)
    problems.push(
      `not judged: no oracle rollout of this task was scored (${[...a.oracleRuns.values()].flatMap((m) => m.get(task.id) ?? []).find((r) => r.reason)?.reason ?? "infra errors"})`,
    );
  const probes = probeOutcomes(a, task, f, problems);
  const mutation = await mutationFor(a, task, f, reference, problems);
  return { id: task.id, ok: problems.length === 0, problems, flakiness, parity, mutation, probes };
}

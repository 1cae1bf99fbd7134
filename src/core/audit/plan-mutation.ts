import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { PlannedTurn } from "../policy/scripted";
import { verifierEntry } from "../reward/verifier-table";
import type { SandboxProvider } from "../model/sandbox";
import { type AuditOptions, fmt, type MutationPlan, shuffledPick, variantId } from "./audit-plan";
import { MutationWorkbench } from "./mutate-code";
import { type AnswerVariant, answerVariants } from "./perturb-answer";
import { sceneVariants } from "./perturb-scene";
import { figuresIn, probeVars, taskDocumentText } from "./probe-vars";
import { screenSolutions } from "./screen";
import { screenProbesIn } from "./screen-tasks";

type ProbeTurns = Array<{ id: string; turns: PlannedTurn[] }>;
type PlanItems = MutationPlan["items"];

/** A task's mutants: of its code (a code or custom domain), of its answer, or of its scene; null when it has none to make. */
export async function planMutation(
  env: Environment,
  task: LoadedTask,
  opts: AuditOptions,
  primary: SandboxProvider,
  reference: number | null,
  reruns: number,
  probes: ProbeTurns = [],
): Promise<MutationPlan | null> {
  const domain = env.manifest.domain;
  if (!task.solution) return null;
  if ((domain === "code" || domain === "custom") && (task.solution.files || task.solution.patch))
    return planCodeMutation(env, task, opts, primary, reference, reruns, probes);
  if (domain !== "scene3d" && task.solution.answer !== undefined) return planAnswerMutation(env, task, opts);
  if (domain === "scene3d" && task.solution.tool_calls) return planSceneMutation(env, task, opts);
  return null;
}

/** Mutants of the reference solution's Python code, screened in one workbench with the oracle's reruns and the task's probes. */
async function planCodeMutation(
  env: Environment,
  task: LoadedTask,
  opts: AuditOptions,
  primary: SandboxProvider,
  reference: number | null,
  reruns: number,
  probes: ProbeTurns,
): Promise<MutationPlan> {
  let bench: MutationWorkbench;
  try {
    bench = await MutationWorkbench.open(primary, env, task, opts.signal);
  } catch (e) {
    return { task, kind: "code", items: [], equivalentUpFront: 0, note: `no mutants: ${(e as Error).message}` };
  }
  try {
    const made = await bench.mutants(opts.seed, opts.mutants);
    const items: PlanItems = made.mutants.map((m, i) => ({
      id: variantId(task.id, "mutant", i + 1),
      task: { ...task, solution: bench.mutantSolution(m) },
      operator: m.operator,
      description: `${m.file}:${m.line} ${m.description}`,
      diff: m.diff,
      expect: "reject" as const,
      code: m,
    }));
    const note =
      items.length === 0
        ? bench.targets().length === 0
          ? "no Python file in the reference solution to mutate"
          : `no mutants (${made.candidates} candidates)`
        : undefined;
    const reopen = () => MutationWorkbench.open(primary, env, task, opts.signal);
    const { screenNote, screened, rerunRewards } = await screenMutants(bench, env, task, items, reference, reruns, opts);
    const outputs = await survivorOutputs(bench, items, screened);
    // The task's probes in this same sandbox, after the mutants (whose files are the gold's, changed a little) and
    // the outputs taken for them: an agent's actions may leave more behind outside the workdir than a mutant does.
    const probesRejected = probes.length > 0 ? await screenProbesIn(bench, env, task, probes, reference, opts) : undefined;
    return {
      task,
      kind: "code",
      items,
      equivalentUpFront: 0,
      bench: reopen,
      ...(note ? { note } : {}),
      ...(screenNote && items.length > 0 ? { screenNote } : {}),
      ...(rerunRewards ? { reruns: rerunRewards } : {}),
      ...(outputs ? { outputs } : {}),
      ...(probesRejected ? { probesRejected } : {}),
    };
  } catch (e) {
    return { task, kind: "code", items: [], equivalentUpFront: 0, note: `no mutants: ${(e as Error).message}` };
  } finally {
    await bench.close();
  }
}

/**
 * The screen: the gold and every mutant through the verifier's own commands in this one
 * sandbox, scored by the real verifiers replayed on what it recorded. A mutant it scores
 * below the reference is killed (marked screenKilled); the rest (survivors, anything it cannot
 * judge) are played as rollouts, so a survivor's verdict is always a rollout's. The same exec
 * reruns the gold's files (the oracle's further flakiness runs) first.
 */
async function screenMutants(
  bench: MutationWorkbench,
  env: Environment,
  task: LoadedTask,
  items: PlanItems,
  reference: number | null,
  reruns: number,
  opts: AuditOptions,
): Promise<{ screenNote?: string; screened: boolean; rerunRewards?: Array<number | null> }> {
  let screenNote: string | undefined;
  let screened = false;
  let rerunRewards: Array<number | null> | undefined;
  if (opts.screen !== false && reference !== null && (items.length > 0 || reruns > 0)) {
    const gold = bench.goldSolution();
    const s = await screenSolutions(bench, env, task, gold, [
      ...Array.from({ length: reruns }, () => gold),
      ...items.map((i) => i.task.solution ?? {}),
    ]);
    if ("skipped" in s) screenNote = s.skipped;
    else {
      rerunRewards = reruns > 0 ? s.rewards.slice(0, reruns) : undefined;
      if (rerunRewards?.some((r) => r === null)) rerunRewards = undefined;
      const golds = [s.gold, ...(rerunRewards ?? [])];
      if (golds.some((g) => g !== reference))
        screenNote = `not screened: the screen scored the reference ${golds.map(fmt).join(", ")}, its rollout ${reference}`;
      else
        for (const [k, item] of items.entries()) {
          screened = true;
          const r = s.rewards[reruns + k];
          if (r === null || r === undefined) continue;
          if (r < reference) item.screenKilled = true;
          else item.screenPassed = true;
        }
    }
  }
  return { ...(screenNote !== undefined ? { screenNote } : {}), screened, ...(rerunRewards ? { rerunRewards } : {}) };
}

/**
 * The likely survivors' outputs for the equivalence check, while this workbench is open (else one is opened again for them).
 * Only those the screen saw pass: one it could not judge (most often still running past its budget, a loop a mutation
 * made) is traced under the verifier's full timeout, one after another, and its rollout nearly always kills it; the few
 * that survive their rollout get their outputs in the equivalence phase. (One task's looping mutants cost 70 s here.)
 */
async function survivorOutputs(bench: MutationWorkbench, items: PlanItems, screened: boolean): Promise<MutationPlan["outputs"]> {
  const through = items.filter((i) => i.code && i.screenPassed);
  if (!screened || through.length === 0) return undefined;
  try {
    const coded = through.flatMap((i) => (i.code ? [{ id: i.id, code: i.code }] : []));
    const [gold = null, ...theirs] = await bench.outputsMany([bench.gold, ...coded.map(({ code }) => bench.withMutant(code))]);
    return { gold, mutants: new Map(coded.map(({ id }, k) => [id, theirs[k] ?? null])) };
  } catch {
    return undefined;
  }
}

/** Perturbed answers (wrong by construction, to reject) and reformatted ones (right, to accept) of the fields its verifiers grade. */
function planAnswerMutation(env: Environment, task: LoadedTask, opts: AuditOptions): MutationPlan {
  const answer = task.solution?.answer;
  const fields = env.manifest.reward.flatMap((v) => verifierEntry(v).gradedFields(v, task));
  // A verifier of its own (a script) grades the whole answer.
  if (fields.length === 0) fields.push({ path: "", judge: false });
  const vars = probeVars(env, task);
  const others = vars.candidate_figures ? vars.candidate_figures.split("; ") : figuresIn(task.prompt);
  const variants = answerVariants(answer, fields, others, taskDocumentText(env, task) || undefined);
  const picked = shuffledPick(variants, Math.max(opts.mutants, variants.filter((v) => v.expect === "accept").length), opts.seed);
  const items = picked.map((v: AnswerVariant & { field: string }, i) => ({
    id: variantId(task.id, v.expect === "accept" ? "reformat" : "perturb", i + 1),
    task: { ...task, solution: { ...task.solution, answer: v.answer } },
    operator: v.operator,
    description: `${v.field || "answer"}: ${v.description}`,
    diff: `- ${JSON.stringify(task.solution?.answer)}\n+ ${JSON.stringify(v.answer)}`,
    expect: v.expect,
    answer: v.answer,
  }));
  return {
    task,
    kind: "answer",
    items,
    equivalentUpFront: 0,
    ...(items.length === 0 ? { note: "no figure or date in a non-judge field of the gold answer to perturb" } : {}),
  };
}

/** Wrong scenes: the reference tool calls changed so that a check should fail. */
function planSceneMutation(env: Environment, task: LoadedTask, opts: AuditOptions): MutationPlan {
  const calls = task.solution?.tool_calls ?? [];
  const target = task.target as { checks?: Array<Record<string, unknown>> } | undefined;
  const checks = [...(target?.checks ?? []), ...env.manifest.reward.flatMap((v) => (v.type === "scene" ? (v.checks ?? []) : []))];
  const all = sceneVariants(calls, checks);
  const picked = shuffledPick(all, opts.mutants, opts.seed);
  const equivalent = picked.filter((v) => v.equivalent).length;
  const items = picked
    .filter((v) => !v.equivalent)
    .map((v, i) => ({
      id: variantId(task.id, "scene", i + 1),
      task: { ...task, solution: { ...task.solution, tool_calls: v.calls } },
      operator: v.operator,
      description: v.description,
      diff: v.description,
      expect: "reject" as const,
    }));
  return { task, kind: "scene", items, equivalentUpFront: equivalent };
}

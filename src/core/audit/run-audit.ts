import path from "node:path";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { PlannedTurn } from "../policy/scripted";
import { Limiter } from "../rollout/limiter";
import type { SandboxProvider } from "../model/sandbox";
import type { EnvironmentAudit, FlakinessResult, MutationResult, ParityResult, ProbeOutcome, TaskAudit } from "../schema/audit";
import { flakinessOf, parityOf } from "./flakiness";
import { type CodeMutant, MutationWorkbench } from "./mutate-code";
import { type AnswerVariant, answerVariants } from "./perturb-answer";
import { sceneVariants } from "./perturb-scene";
import { figuresIn, probeVars, taskDocumentText } from "./probe-vars";
import { type LoadedProbe, probePolicy } from "./probes";
import { candidateFiles, oracleScreenable, probeActions, replayScore, screenPlan, screenSolutions } from "./screen";
import { type AuditItem, type AuditOutcome, type BatchContext, runBatch } from "./run-batch";

type Backend = "docker" | "process";

export interface AuditOptions {
  /** One provider per backend to audit on; the first is where mutants run. */
  providers: Array<{ backend: Backend; provider: SandboxProvider }>;
  runsDir: string;
  tasks?: string[];
  runs: number;
  mutants: number;
  seed: number;
  concurrency: number;
  probes: LoadedProbe[];
  /**
   * False: every oracle run, probe and mutant is a rollout of its own. Otherwise the screen
   * stands in where it can judge (see screen.ts), with the same verdicts.
   */
  screen?: boolean;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Tasks the audit covers: the named ones this environment has, else all. */
function selected(env: Environment, only: string[] | undefined): LoadedTask[] {
  return only ? env.tasks.filter((t) => only.includes(t.id)) : env.tasks;
}

/** A variant id that keeps the task's id visible in the trajectory's file name. */
const variantId = (task: string, kind: string, n: string | number) => `${task}--${kind}-${n}`;

interface MutationPlan {
  task: LoadedTask;
  kind: MutationResult["kind"];
  items: Array<
    AuditItem & {
      operator: string;
      description: string;
      diff: string;
      expect: "reject" | "accept";
      answer?: unknown;
      code?: CodeMutant;
      /** The screen's replay of the real verifier scored it below the reference: killed without a rollout. */
      screenKilled?: boolean;
      /** The screen saw it finish and scored it at least the reference: a likely survivor of its rollout. */
      screenPassed?: boolean;
    }
  >;
  equivalentUpFront: number;
  note?: string;
  /** Why the screen did not stand in for this task's mutant rollouts, when it did not. */
  screenNote?: string;
  /** The oracle's further runs as screen reruns (the gold's files through the verifier again), when asked for and screened. */
  reruns?: Array<number | null>;
  /** What the gold and the mutants the screen let through compute (MutationWorkbench.outputs), taken while its workbench was open. */
  outputs?: { gold: string | null; mutants: Map<string, string | null> };
  /** A fresh workbench for the equivalence check of survivors (the one that made the mutants is closed). */
  bench?: () => Promise<MutationWorkbench>;
  /** The task's probes the screen rejected in this same workbench, after the mutants (absent: not screened here). */
  probesRejected?: string[];
}

function shuffledPick<T>(items: T[], max: number, seed: number): T[] {
  if (items.length <= max) return items;
  // mulberry32: the same seed picks the same variants.
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
  }
  return idx
    .slice(0, max)
    .sort((a, b) => a - b)
    .map((i) => items[i] as T);
}

async function planMutation(
  env: Environment,
  task: LoadedTask,
  opts: AuditOptions,
  primary: SandboxProvider,
  reference: number | null,
  reruns: number,
  probes: Array<{ id: string; turns: PlannedTurn[] }> = [],
): Promise<MutationPlan | null> {
  const domain = env.manifest.domain;
  if (!task.solution) return null;
  if ((domain === "code" || domain === "custom") && (task.solution.files || task.solution.patch)) {
    let bench: MutationWorkbench;
    try {
      bench = await MutationWorkbench.open(primary, env, task, opts.signal);
    } catch (e) {
      return { task, kind: "code", items: [], equivalentUpFront: 0, note: `no mutants: ${(e as Error).message}` };
    }
    try {
      const made = await bench.mutants(opts.seed, opts.mutants);
      const items: MutationPlan["items"] = made.mutants.map((m, i) => ({
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
      // The screen: the gold and every mutant through the verifier's own commands in this one
      // sandbox, scored by the real verifiers replayed on what it recorded. A mutant it scores
      // below the reference is killed; the rest (survivors, anything it cannot judge) are played
      // as rollouts below, so a survivor's verdict is always a rollout's.
      // The same exec reruns the gold's files (the oracle's further flakiness runs) first.
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
      // The likely survivors' outputs for the equivalence check, while this workbench is open (else one is opened again for them).
      // Only those the screen saw pass: one it could not judge (most often still running past its budget, a loop a mutation
      // made) is traced under the verifier's full timeout, one after another, and its rollout nearly always kills it; the few
      // that survive their rollout get their outputs in the equivalence phase. (One task's looping mutants cost 70 s here.)
      let outputs: MutationPlan["outputs"];
      const through = items.filter((i) => i.code && i.screenPassed);
      if (screened && through.length > 0) {
        try {
          const coded = through.flatMap((i) => (i.code ? [{ id: i.id, code: i.code }] : []));
          const [gold = null, ...theirs] = await bench.outputsMany([bench.gold, ...coded.map(({ code }) => bench.withMutant(code))]);
          outputs = { gold, mutants: new Map(coded.map(({ id }, k) => [id, theirs[k] ?? null])) };
        } catch {
          outputs = undefined;
        }
      }
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
  if (domain !== "scene3d" && task.solution.answer !== undefined) {
    const target = task.target as { grading?: Record<string, { comparator?: string }> } | undefined;
    const fields = env.manifest.reward.flatMap((v) =>
      v.type === "fields"
        ? Object.entries(v.fields).map(([p, spec]) => ({
            path: p,
            judge: spec.comparator === "judge" || target?.grading?.[p]?.comparator === "judge",
          }))
        : v.type === "exact" || v.type === "numeric"
          ? [{ path: v.field ?? "", judge: false }]
          : [],
    );
    // A verifier of its own (a script) grades the whole answer.
    if (fields.length === 0) fields.push({ path: "", judge: false });
    const vars = probeVars(env, task);
    const others = vars.candidate_figures ? vars.candidate_figures.split("; ") : figuresIn(task.prompt);
    const variants = answerVariants(task.solution.answer, fields, others, taskDocumentText(env, task) || undefined);
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
  if (domain === "scene3d" && task.solution.tool_calls) {
    const target = task.target as { checks?: Array<Record<string, unknown>> } | undefined;
    const checks = [...(target?.checks ?? []), ...env.manifest.reward.flatMap((v) => (v.type === "scene" ? (v.checks ?? []) : []))];
    const all = sceneVariants(task.solution.tool_calls, checks);
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
  return null;
}

/** Killed, survived (with whether it is equivalent) or not judged, for every mutant of a task. */
async function judgeMutation(plan: MutationPlan, outcomes: Map<string, AuditOutcome[]>, reference: number | null): Promise<MutationResult> {
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
  let goldOutputs: string | null | undefined;
  let bench: MutationWorkbench | undefined;
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
    // Survived: equivalent only when it computes what the gold does on the task's own inputs.
    const taken = plan.outputs?.mutants.has(item.id) ? plan.outputs : undefined;
    if (taken) {
      const mine = taken.mutants.get(item.id) ?? null;
      if (taken.gold !== null && mine !== null && mine === taken.gold) {
        result.equivalent++;
        continue;
      }
    } else if (plan.bench && item.code) {
      try {
        bench ??= await plan.bench();
        goldOutputs ??= await bench.outputs(bench.gold);
        const mine = await bench.outputs(bench.withMutant(item.code));
        await bench.writeGold();
        if (goldOutputs !== null && mine !== null && mine === goldOutputs) {
          result.equivalent++;
          continue;
        }
      } catch {
        // Could not tell: it stays a survivor.
      }
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
  await bench?.close();
  const judged = result.mutants - result.equivalent - result.not_judged;
  result.score = judged > 0 ? result.killed / judged : null;
  return result;
}

/**
 * A task's probes through the screen in a workbench of its own, after the gold (the screen must
 * score it as the oracle's rollout did): the ids of those the real verifiers scored 0.
 */
async function screenProbes(
  provider: SandboxProvider,
  env: Environment,
  task: LoadedTask,
  items: Array<{ id: string; turns: PlannedTurn[] }>,
  reference: number | null,
  opts: AuditOptions,
): Promise<string[]> {
  if (opts.screen === false || reference === null || items.length === 0 || !(await oracleScreenable(env, task))) return [];
  let bench: MutationWorkbench | undefined;
  try {
    bench = await MutationWorkbench.open(provider, env, task, opts.signal);
    return await screenProbesIn(bench, env, task, items, reference, opts);
  } catch {
    return [];
  } finally {
    await bench?.close();
  }
}

/** screenProbes in a workbench already open (the one where the task's mutants were made and screened). */
async function screenProbesIn(
  bench: MutationWorkbench,
  env: Environment,
  task: LoadedTask,
  items: Array<{ id: string; turns: PlannedTurn[] }>,
  reference: number | null,
  opts: AuditOptions,
): Promise<string[]> {
  if (opts.screen === false || reference === null || items.length === 0 || !(await oracleScreenable(env, task))) return [];
  const plan = await screenPlan(env, task);
  if ("unscreenable" in plan) return [];
  const stepMs = env.manifest.sandbox.timeouts.step * 1000;
  const playable = items.flatMap((i) => {
    const actions = probeActions(i.turns, stepMs);
    return actions ? [{ id: i.id, actions }] : [];
  });
  if (playable.length === 0) return [];
  try {
    const gold = candidateFiles(bench.goldSolution());
    const runs = await bench.screen(plan, [{ files: gold }, ...playable.map((p) => ({ files: {}, actions: p.actions }))]);
    if ("failed" in runs) return [];
    const [goldRuns, ...probeRuns] = runs;
    if (!goldRuns || (await replayScore(env, task, plan, goldRuns, bench)) !== reference) return [];
    const rejected: string[] = [];
    for (const [k, p] of playable.entries()) {
      const recorded = probeRuns[k];
      if (recorded && (await replayScore(env, task, plan, recorded, bench)) === 0) rejected.push(p.id);
    }
    return rejected;
  } catch {
    return [];
  }
}

/** One map of a task's outcomes from several batches. */
function mergeRuns(maps: Array<Map<string, AuditOutcome[]>>): Map<string, AuditOutcome[]> {
  const out = new Map<string, AuditOutcome[]>();
  for (const m of maps) for (const [id, list] of m) out.set(id, [...(out.get(id) ?? []), ...list]);
  return out;
}

/**
 * The oracle's N − 1 further runs on a backend as screen reruns in a workbench of its own: the
 * rewards, or null when the screen could not judge them all (the caller plays rollouts instead).
 */
async function rerunOracle(
  provider: SandboxProvider,
  env: Environment,
  task: LoadedTask,
  opts: AuditOptions,
  reference: number | null,
): Promise<Array<number | null> | null> {
  if (reference === null) return null;
  let bench: MutationWorkbench | undefined;
  try {
    bench = await MutationWorkbench.open(provider, env, task, opts.signal);
    const gold = bench.goldSolution();
    const s = await screenSolutions(
      bench,
      env,
      task,
      gold,
      Array.from({ length: opts.runs - 2 }, () => gold),
    );
    if ("skipped" in s) return null;
    const rewards = [s.gold, ...s.rewards];
    return rewards.some((r) => r === null) ? null : rewards;
  } catch {
    return null;
  } finally {
    await bench?.close();
  }
}

function fmt(r: number | null): string {
  return r === null ? "not judged" : String(Math.round(r * 1000) / 1000);
}

/**
 * The audit of one environment: the oracle N times on every backend (flakiness, parity),
 * every hack probe on every backend, then the mutants of the reference solution on the
 * first backend. Every rollout goes through runEnvironment; what it writes stays in
 * opts.runsDir, one run folder per batch.
 */
export async function auditEnvironment(env: Environment, opts: AuditOptions): Promise<EnvironmentAudit> {
  const log = opts.log ?? (() => {});
  const tasks = selected(env, opts.tasks);
  const notes: string[] = [];
  const minScore = env.manifest.validation.audit.min_mutation_score;
  const slots = new Limiter(opts.concurrency);
  const first = opts.providers[0];
  if (!first) throw new Error("audit: no sandbox backend");
  const ctxFor = (provider: SandboxProvider, k = 1): BatchContext => ({
    env,
    provider,
    runsDir: path.join(opts.runsDir, env.manifest.name),
    slots,
    concurrency: opts.concurrency,
    k,
    seed: opts.seed,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const tools = [...env.builtinTools, ...env.customTools.map((c) => c.name)];
  const phases: NonNullable<EnvironmentAudit["phases"]> = [];
  /** Runs one phase, recording its wall time and how many rollouts it made. */
  const timed = async <T>(phase: string, work: () => Promise<T>, rollouts: (r: T) => number): Promise<T> => {
    const t0 = performance.now();
    const r = await work();
    const seconds = Math.round(performance.now() - t0) / 1000;
    phases.push({ phase, seconds, rollouts: rollouts(r) });
    log(`${env.manifest.name}: ${phase} took ${seconds.toFixed(1)} s`);
    return r;
  };
  const count = (m: Map<string, AuditOutcome[]>) => [...m.values()].reduce((s, l) => s + l.length, 0);
  if (opts.providers.length < 2) notes.push(`backend parity not checked: only the ${first.backend} backend is available here`);

  // 1. Flakiness: the oracle N times per backend. A task the screen can judge gets one rollout
  // here, in a fresh sandbox, and its N − 1 further runs as reruns of the verifier's commands on
  // the oracle's files in one sandbox (each a fresh process in a rewritten workdir, below); any
  // other task gets N rollouts, each in a fresh sandbox.
  const rerunnable = new Set<string>();
  if (opts.runs > 1 && opts.screen !== false) for (const t of tasks) if (await oracleScreenable(env, t)) rerunnable.add(t.id);
  const oracleRuns = new Map<Backend, Map<string, AuditOutcome[]>>();
  const reruns = new Map<Backend, Map<string, Array<number | null>>>();
  for (const { backend, provider } of opts.providers) {
    log(`${env.manifest.name}: oracle on ${backend}: ${rerunnable.size} tasks × 1, ${tasks.length - rerunnable.size} × ${opts.runs}`);
    oracleRuns.set(
      backend,
      await timed(
        `oracle on ${backend}`,
        async () =>
          mergeRuns(
            await Promise.all([
              runBatch(
                ctxFor(provider, 1),
                `oracle-${backend}`,
                tasks.filter((t) => rerunnable.has(t.id)).map((t) => ({ id: t.id, task: t })),
              ),
              runBatch(
                ctxFor(provider, opts.runs),
                `oracle-${backend}-each`,
                tasks.filter((t) => !rerunnable.has(t.id)).map((t) => ({ id: t.id, task: t })),
              ),
            ]),
          ),
        count,
      ),
    );
    reruns.set(backend, new Map());
  }

  /** The oracle's reward for a task on a backend, when its rollouts there agree (a flaky one gives the screen no bar). */
  const referenceOn = (backend: Backend, id: string): number | null => {
    const judged = (oracleRuns.get(backend)?.get(id) ?? []).map((o) => o.reward).filter((r): r is number => r !== null);
    return judged.length > 0 && judged.every((r) => r === judged[0]) ? (judged[0] ?? null) : null;
  };
  // Workbenches (a sandbox of a task's own, where the screen runs and mutants are made), a few at a time.
  const making = new Limiter(Math.max(1, Math.min(4, opts.concurrency)));

  // 2. Probes, on every backend (their screen on the mutants' backend shares each task's workbench with the mutants, below).
  const probeItems: Array<AuditItem & { probe: string; task: LoadedTask; turns: PlannedTurn[] }> = [];
  const sampledFor = new Map<string, number>();
  for (const task of tasks) {
    const vars = probeVars(env, task);
    for (const probe of opts.probes) {
      const p = probePolicy(probe, env, task, vars, tools);
      if ("skip" in p) continue;
      if (probe.sample) {
        const n = sampledFor.get(probe.name) ?? 0;
        if (n >= probe.sample) continue;
        sampledFor.set(probe.name, n + 1);
      }
      probeItems.push({ id: variantId(task.id, "probe", probe.name), task, probe: probe.name, policy: p.policy, turns: p.turns });
    }
  }
  const probesOf = new Map<string, typeof probeItems>();
  for (const item of probeItems) probesOf.set(item.task.id, [...(probesOf.get(item.task.id) ?? []), item]);

  // A backend that judged none of the oracle's rollouts (an image it lacks, a sandbox that cannot start) says so once.
  const judging = opts.providers.filter(({ backend }) =>
    [...(oracleRuns.get(backend)?.values() ?? [])].some((runs) => runs.some((r) => r.reward !== null)),
  );
  for (const { backend } of opts.providers) {
    if (judging.some((j) => j.backend === backend)) continue;
    const why = [...(oracleRuns.get(backend)?.values() ?? [])].flat().find((r) => r.reason)?.reason;
    notes.push(`the ${backend} backend judged none of the oracle's rollouts${why ? `: ${why}` : ""}`);
  }
  // 3. Mutants, on the first backend that judged the oracle (whether a verifier catches a wrong solution does not depend on the sandbox).
  // One workbench per task there makes the mutants and screens them, the oracle's reruns and the task's probes, one sandbox start for all.
  const mutating = judging[0] ?? first;
  const plans = (
    await timed(
      `mutants and probes screened on ${mutating.backend}`,
      () =>
        Promise.all(
          tasks.map((task) =>
            making.run(() =>
              planMutation(
                env,
                task,
                opts,
                mutating.provider,
                referenceOn(mutating.backend, task.id),
                rerunnable.has(task.id) ? opts.runs - 1 : 0,
                probesOf.get(task.id) ?? [],
              ),
            ),
          ),
        ),
      () => 0,
    )
  ).filter((p): p is MutationPlan => p !== null);

  // A task the screen can judge plays its probes there first, with the gold to check the screen
  // against the oracle's rollout: a probe the real verifiers score 0 on its recorded runs is
  // rejected; a finding, or anything the screen cannot judge, is played as a rollout, so a
  // finding's evidence is always a rollout's trajectory. On the mutants' backend that was done in
  // each task's workbench above; elsewhere (and for a task whose workbench did not screen them) in one of its own.
  const probeRuns = new Map<Backend, Map<string, AuditOutcome[]>>();
  const probeScreened = new Map<Backend, Set<string>>();
  for (const { backend, provider } of opts.providers) {
    const rejected = new Set<string>();
    probeScreened.set(backend, rejected);
    const done = new Set<string>();
    if (backend === mutating.backend)
      for (const p of plans) {
        if (!p.probesRejected) continue;
        done.add(p.task.id);
        for (const id of p.probesRejected) rejected.add(id);
      }
    await timed(
      `probes screened on ${backend}`,
      () =>
        Promise.all(
          [...probesOf.entries()]
            .filter(([id]) => !done.has(id))
            .map(([, items]) =>
              making.run(async () => {
                const task = items[0]?.task;
                if (!task) return;
                for (const id of await screenProbes(provider, env, task, items, referenceOn(backend, task.id), opts)) rejected.add(id);
              }),
            ),
        ),
      () => 0,
    );
    const played = probeItems.filter((i) => !rejected.has(i.id));
    log(`${env.manifest.name}: ${played.length} probe rollouts on ${backend} (${rejected.size} rejected by the screen)`);
    probeRuns.set(backend, await timed(`probes on ${backend}`, () => runBatch(ctxFor(provider), `probes-${backend}`, played), count));
  }
  for (const p of plans) if (p.reruns) reruns.get(mutating.backend)?.set(p.task.id, p.reruns);
  // The oracle's reruns on the other backends, a workbench per task; then rollouts for any task the screen could not rerun.
  for (const { backend, provider } of opts.providers) {
    const got = reruns.get(backend) ?? new Map<string, Array<number | null>>();
    const want = tasks.filter((t) => rerunnable.has(t.id) && !got.has(t.id));
    if (backend !== mutating.backend && want.length > 0)
      await timed(
        `oracle reruns on ${backend}`,
        () =>
          Promise.all(
            want.map((task) =>
              making.run(async () => {
                const r = await rerunOracle(provider, env, task, opts, referenceOn(backend, task.id));
                if (r) got.set(task.id, r);
              }),
            ),
          ),
        () => 0,
      );
    const again = tasks.filter((t) => rerunnable.has(t.id) && !got.has(t.id));
    if (again.length === 0) continue;
    const more = await timed(
      `oracle again on ${backend}`,
      () =>
        runBatch(
          ctxFor(provider, opts.runs - 1),
          `oracle-${backend}-again`,
          again.map((t) => ({ id: t.id, task: t })),
        ),
      count,
    );
    const runs = oracleRuns.get(backend);
    for (const [id, list] of more) runs?.set(id, [...(runs.get(id) ?? []), ...list]);
  }
  const played = plans.flatMap((p) => p.items.filter((i) => !i.screenKilled));
  const screenNotes = new Map<string, number>();
  for (const p of plans) if (p.screenNote) screenNotes.set(p.screenNote, (screenNotes.get(p.screenNote) ?? 0) + 1);
  for (const [n, count] of screenNotes) notes.push(`mutants of ${count} task${count === 1 ? "" : "s"} ${n}: each was played as a rollout`);
  log(
    `${env.manifest.name}: ${plans.reduce((s, p) => s + p.items.length - p.items.filter((i) => i.screenKilled).length, 0)} mutant rollouts on ${mutating.backend} (${plans.reduce((s, p) => s + p.items.filter((i) => i.screenKilled).length, 0)} killed by the screen)`,
  );
  const mutantRuns = await timed(
    `mutants on ${mutating.backend}`,
    () => runBatch(ctxFor(mutating.provider), `mutants-${mutating.backend}`, played),
    count,
  );

  // Each task's survivors are checked for equivalence in a workbench of its own: a few tasks at a time, not one after another.
  const referenceOf = (id: string) =>
    opts.providers.flatMap(({ backend }) => (oracleRuns.get(backend)?.get(id) ?? []).map((o) => o.reward)).find((r) => r !== null) ?? null;
  const mutations = new Map(
    await timed(
      "equivalence of survivors",
      () =>
        Promise.all(
          plans.map((plan) =>
            making.run(async () => [plan.task.id, await judgeMutation(plan, mutantRuns, referenceOf(plan.task.id))] as const),
          ),
        ),
      () => 0,
    ),
  );

  const audits: TaskAudit[] = [];
  for (const task of tasks) {
    const problems: string[] = [];
    const flakiness: FlakinessResult[] = opts.providers.map(({ backend }) =>
      flakinessOf(backend, oracleRuns.get(backend)?.get(task.id) ?? [], reruns.get(backend)?.get(task.id) ?? []),
    );
    for (const f of flakiness) {
      if (f.flaky) problems.push(`flaky on ${f.backend}: the oracle's rewards were ${f.rewards.map(fmt).join(", ")}`);
    }
    let parity: ParityResult | null = null;
    const [a, b] = opts.providers;
    if (a && b) {
      parity = parityOf(
        { backend: a.backend, runs: oracleRuns.get(a.backend)?.get(task.id) ?? [] },
        { backend: b.backend, runs: oracleRuns.get(b.backend)?.get(task.id) ?? [] },
      );
      if (parity.agree === false && parity.first_difference) {
        const d = parity.first_difference;
        problems.push(`backend parity: ${d.component} scored ${fmt(d.a)} on ${a.backend} and ${fmt(d.b)} on ${b.backend}`);
      }
    }
    const reference = flakiness.flatMap((f) => f.rewards).find((r) => r !== null) ?? null;
    if (reference === 0) problems.push("the oracle scores 0: nothing to audit the verifier against");
    // A task graded by a judge this machine has no endpoint for cannot be audited here: said, neither passed nor failed (as validate --run does).
    const oracleOutcomes = [...oracleRuns.values()].flatMap((m) => m.get(task.id) ?? []);
    const skipped = reference === null ? oracleOutcomes.find((r) => r.skipped)?.skipped : undefined;
    if (skipped) {
      audits.push({ id: task.id, ok: true, problems: [], not_judged: skipped, flakiness, parity, mutation: null, probes: [] });
      continue;
    }
    // Infra errors judge nothing: a task no backend could judge is not a pass.
    if (reference === null)
      problems.push(
        `not judged: no oracle rollout of this task was scored (${[...oracleRuns.values()].flatMap((m) => m.get(task.id) ?? []).find((r) => r.reason)?.reason ?? "infra errors"})`,
      );

    const probes: ProbeOutcome[] = [];
    for (const { backend } of opts.providers) {
      for (const item of probeItems.filter((p) => p.task.id === task.id)) {
        if (probeScreened.get(backend)?.has(item.id)) {
          probes.push({ probe: item.probe, backend, status: "rejected", reward: 0, trajectory: "", screened: true });
          continue;
        }
        const o = probeRuns.get(backend)?.get(item.id)?.[0];
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

    const plan = plans.find((p) => p.task.id === task.id);
    let mutation: MutationResult | null = null;
    if (plan) {
      mutation = mutations.get(task.id) ?? (await judgeMutation(plan, mutantRuns, reference));
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
    }
    audits.push({ id: task.id, ok: problems.length === 0, problems, flakiness, parity, mutation, probes });
  }
  return {
    name: env.manifest.name,
    dir: env.dir,
    // What its runs record too, so that a run's dashboard never shows the audit of other content under the same name.
    ...(env.hash ? { hash: env.hash } : {}),
    domain: env.manifest.domain,
    ok: audits.every((t) => t.ok),
    min_mutation_score: minScore,
    judge: env.manifest.judge,
    tasks: audits,
    notes,
    phases,
  };
}

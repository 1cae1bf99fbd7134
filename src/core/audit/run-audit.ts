import path from "node:path";
import type { Environment } from "../environment/load-environment";
import type { LoadedTask } from "../environment/load-tasks";
import type { PlannedTurn } from "../policy/scripted";
import { Limiter } from "../rollout/limiter";
import type { SandboxProvider } from "../sandbox/types";
import type { EnvironmentAudit, FlakinessResult, MutationResult, ParityResult, ProbeOutcome, TaskAudit } from "../schema/audit";
import { type AuditOptions, type Backend, fmt, type MutationPlan, mergeRuns, selected, variantId } from "./audit-plan";
import { flakinessOf, parityOf } from "./flakiness";
import { judgeMutation } from "./judge-mutation";
import { planMutation } from "./plan-mutation";
import { probeVars } from "./probe-vars";
import { probePolicy } from "./probes";
import { type AuditItem, type AuditOutcome, type BatchContext, runBatch } from "./run-batch";
import { oracleScreenable } from "./screen";
import { rerunOracle, screenProbes } from "./screen-tasks";

export type { AuditOptions } from "./audit-plan";

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

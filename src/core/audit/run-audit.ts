import path from "node:path";
import type { Environment } from "../model/environment";
import { Limiter } from "../rollout/limiter";
import type { EnvironmentAudit, MutationResult, TaskAudit } from "../schema/audit";
import {
  type Audit,
  type AuditOptions,
  type Backend,
  type MutationPlan,
  mergeRuns,
  type ProbeItem,
  type Provider,
  selected,
  variantId,
} from "./audit-plan";
import { auditTask, type Findings } from "./audit-verdict";
import { judgeMutation } from "./judge-mutation";
import { planMutation } from "./plan-mutation";
import { probeVars } from "./probe-vars";
import { probePolicy } from "./probes";
import { type AuditOutcome, runBatch } from "./run-batch";
import { oracleScreenable } from "./screen";
import { rerunOracle, screenProbes } from "./screen-tasks";

export type { AuditOptions } from "./audit-plan";

const count = (m: Map<string, AuditOutcome[]>) => [...m.values()].reduce((s, l) => s + l.length, 0);

function startAudit(env: Environment, opts: AuditOptions): Audit {
  const log = opts.log ?? (() => {});
  const slots = new Limiter(opts.concurrency);
  const first = opts.providers[0];
  if (!first) throw new Error("audit: no sandbox backend");
  const phases: Audit["phases"] = [];
  return {
    env,
    opts,
    tasks: selected(env, opts.tasks),
    notes: [],
    phases,
    first,
    making: new Limiter(Math.max(1, Math.min(4, opts.concurrency))),
    log,
    ctxFor: (provider, k = 1) => ({
      env,
      provider,
      runsDir: path.join(opts.runsDir, env.manifest.name),
      slots,
      concurrency: opts.concurrency,
      k,
      seed: opts.seed,
      ...(opts.signal ? { signal: opts.signal } : {}),
    }),
    timed: async (phase, work, rollouts) => {
      const t0 = performance.now();
      const r = await work();
      const seconds = Math.round(performance.now() - t0) / 1000;
      phases.push({ phase, seconds, rollouts: rollouts(r) });
      log(`${env.manifest.name}: ${phase} took ${seconds.toFixed(1)} s`);
      return r;
    },
    rerunnable: new Set(),
    oracleRuns: new Map(),
    reruns: new Map(),
  };
}

/**
 * 1. Flakiness: the oracle N times per backend. A task the screen can judge gets one rollout
 * here, in a fresh sandbox, and its N − 1 further runs as reruns of the verifier's commands on
 * the oracle's files in one sandbox (each a fresh process in a rewritten workdir, below); any
 * other task gets N rollouts, each in a fresh sandbox.
 */
async function runOracle(a: Audit): Promise<void> {
  const { env, opts, tasks, rerunnable } = a;
  if (opts.runs > 1 && opts.screen !== false) for (const t of tasks) if (await oracleScreenable(env, t)) rerunnable.add(t.id);
  for (const { backend, provider } of opts.providers) {
    a.log(`${env.manifest.name}: oracle on ${backend}: ${rerunnable.size} tasks × 1, ${tasks.length - rerunnable.size} × ${opts.runs}`);
    a.oracleRuns.set(
      backend,
      await a.timed(
        `oracle on ${backend}`,
        async () =>
          mergeRuns(
            await Promise.all([
              runBatch(
                a.ctxFor(provider, 1),
                `oracle-${backend}`,
                tasks.filter((t) => rerunnable.has(t.id)).map((t) => ({ id: t.id, task: t })),
              ),
              runBatch(
                a.ctxFor(provider, opts.runs),
                `oracle-${backend}-each`,
                tasks.filter((t) => !rerunnable.has(t.id)).map((t) => ({ id: t.id, task: t })),
              ),
            ]),
          ),
        count,
      ),
    );
    a.reruns.set(backend, new Map());
  }
}

/** The oracle's reward for a task on a backend, when its rollouts there agree (a flaky one gives the screen no bar). */
function referenceOn(a: Audit, backend: Backend, id: string): number | null {
  const judged = (a.oracleRuns.get(backend)?.get(id) ?? []).map((o) => o.reward).filter((r): r is number => r !== null);
  return judged.length > 0 && judged.every((r) => r === judged[0]) ? (judged[0] ?? null) : null;
}

/** 2. Probes, on every backend (their screen on the mutants' backend shares each task's workbench with the mutants, below). */
function collectProbes(a: Audit): ProbeItem[] {
  const { env } = a;
  const tools = [...env.builtinTools, ...env.customTools.map((c) => c.name)];
  const probeItems: ProbeItem[] = [];
  const sampledFor = new Map<string, number>();
  for (const task of a.tasks) {
    const vars = probeVars(env, task);
    for (const probe of a.opts.probes) {
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
  return probeItems;
}

/** The backends that judged some of the oracle's rollouts; one that judged none (an image it lacks, a sandbox that cannot start) says so once. */
function judgingBackends(a: Audit): Provider[] {
  const judging = a.opts.providers.filter(({ backend }) =>
    [...(a.oracleRuns.get(backend)?.values() ?? [])].some((runs) => runs.some((r) => r.reward !== null)),
  );
  for (const { backend } of a.opts.providers) {
    if (judging.some((j) => j.backend === backend)) continue;
    const why = [...(a.oracleRuns.get(backend)?.values() ?? [])].flat().find((r) => r.reason)?.reason;
    a.notes.push(`the ${backend} backend judged none of the oracle's rollouts${why ? `: ${why}` : ""}`);
  }
  return judging;
}

/**
 * 3. Mutants, on the first backend that judged the oracle (whether a verifier catches a wrong solution does not depend on the sandbox).
 * One workbench per task there makes the mutants and screens them, the oracle's reruns and the task's probes, one sandbox start for all.
 */
async function planMutants(a: Audit, mutating: Provider, probesOf: Map<string, ProbeItem[]>): Promise<MutationPlan[]> {
  const { env, opts } = a;
  return (
    await a.timed(
      `mutants and probes screened on ${mutating.backend}`,
      () =>
        Promise.all(
          a.tasks.map((task) =>
            a.making.run(() =>
              planMutation(
                env,
                task,
                opts,
                mutating.provider,
                referenceOn(a, mutating.backend, task.id),
                a.rerunnable.has(task.id) ? opts.runs - 1 : 0,
                probesOf.get(task.id) ?? [],
              ),
            ),
          ),
        ),
      () => 0,
    )
  ).filter((p): p is MutationPlan => p !== null);
}

/**
 * A task the screen can judge plays its probes there first, with the gold to check the screen
 * against the oracle's rollout: a probe the real verifiers score 0 on its recorded runs is
 * rejected; a finding, or anything the screen cannot judge, is played as a rollout, so a
 * finding's evidence is always a rollout's trajectory. On the mutants' backend that was done in
 * each task's workbench above; elsewhere (and for a task whose workbench did not screen them) in one of its own.
 */
async function playProbes(
  a: Audit,
  probeItems: ProbeItem[],
  probesOf: Map<string, ProbeItem[]>,
  plans: MutationPlan[],
  mutating: Provider,
): Promise<{ probeRuns: Map<Backend, Map<string, AuditOutcome[]>>; probeScreened: Map<Backend, Set<string>> }> {
  const { env, opts } = a;
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
    await a.timed(
      `probes screened on ${backend}`,
      () =>
        Promise.all(
          [...probesOf.entries()]
            .filter(([id]) => !done.has(id))
            .map(([, items]) =>
              a.making.run(async () => {
                const task = items[0]?.task;
                if (!task) return;
                for (const id of await screenProbes(provider, env, task, items, referenceOn(a, backend, task.id), opts)) rejected.add(id);
              }),
            ),
        ),
      () => 0,
    );
    const played = probeItems.filter((i) => !rejected.has(i.id));
    a.log(`${env.manifest.name}: ${played.length} probe rollouts on ${backend} (${rejected.size} rejected by the screen)`);
    probeRuns.set(backend, await a.timed(`probes on ${backend}`, () => runBatch(a.ctxFor(provider), `probes-${backend}`, played), count));
  }
  return { probeRuns, probeScreened };
}

/** The oracle's reruns on the other backends, a workbench per task; then rollouts for any task the screen could not rerun. */
async function rerunOracleEverywhere(a: Audit, plans: MutationPlan[], mutating: Provider): Promise<void> {
  const { env, opts, tasks, rerunnable } = a;
  for (const p of plans) if (p.reruns) a.reruns.get(mutating.backend)?.set(p.task.id, p.reruns);
  for (const { backend, provider } of opts.providers) {
    const got = a.reruns.get(backend) ?? new Map<string, Array<number | null>>();
    const want = tasks.filter((t) => rerunnable.has(t.id) && !got.has(t.id));
    if (backend !== mutating.backend && want.length > 0)
      await a.timed(
        `oracle reruns on ${backend}`,
        () =>
          Promise.all(
            want.map((task) =>
              a.making.run(async () => {
                const r = await rerunOracle(provider, env, task, opts, referenceOn(a, backend, task.id));
                if (r) got.set(task.id, r);
              }),
            ),
          ),
        () => 0,
      );
    const again = tasks.filter((t) => rerunnable.has(t.id) && !got.has(t.id));
    if (again.length === 0) continue;
    const more = await a.timed(
      `oracle again on ${backend}`,
      () =>
        runBatch(
          a.ctxFor(provider, opts.runs - 1),
          `oracle-${backend}-again`,
          again.map((t) => ({ id: t.id, task: t })),
        ),
      count,
    );
    const runs = a.oracleRuns.get(backend);
    for (const [id, list] of more) runs?.set(id, [...(runs.get(id) ?? []), ...list]);
  }
}

/** The mutants the screen did not kill, played as rollouts; then each task's survivors checked for equivalence. */
async function playMutants(
  a: Audit,
  plans: MutationPlan[],
  mutating: Provider,
): Promise<{ mutantRuns: Map<string, AuditOutcome[]>; mutations: Map<string, MutationResult> }> {
  const { env, opts } = a;
  const played = plans.flatMap((p) => p.items.filter((i) => !i.screenKilled));
  const screenNotes = new Map<string, number>();
  for (const p of plans) if (p.screenNote) screenNotes.set(p.screenNote, (screenNotes.get(p.screenNote) ?? 0) + 1);
  for (const [n, count] of screenNotes)
    a.notes.push(`mutants of ${count} task${count === 1 ? "" : "s"} ${n}: each was played as a rollout`);
  a.log(
    `${env.manifest.name}: ${plans.reduce((s, p) => s + p.items.length - p.items.filter((i) => i.screenKilled).length, 0)} mutant rollouts on ${mutating.backend} (${plans.reduce((s, p) => s + p.items.filter((i) => i.screenKilled).length, 0)} killed by the screen)`,
  );
  const mutantRuns = await a.timed(
    `mutants on ${mutating.backend}`,
    () => runBatch(a.ctxFor(mutating.provider), `mutants-${mutating.backend}`, played),
    count,
  );

  // Each task's survivors are checked for equivalence in a workbench of its own: a few tasks at a time, not one after another.
  const referenceOf = (id: string) =>
    opts.providers.flatMap(({ backend }) => (a.oracleRuns.get(backend)?.get(id) ?? []).map((o) => o.reward)).find((r) => r !== null) ??
    null;
  const mutations = new Map(
    await a.timed(
      "equivalence of survivors",
      () =>
        Promise.all(
          plans.map((plan) =>
            a.making.run(async () => [plan.task.id, await judgeMutation(plan, mutantRuns, referenceOf(plan.task.id))] as const),
          ),
        ),
      () => 0,
    ),
  );
  return { mutantRuns, mutations };
}

/**
 * The audit of one environment: the oracle N times on every backend (flakiness, parity),
 * every hack probe on every backend, then the mutants of the reference solution on the
 * first backend. Every rollout goes through runEnvironment; what it writes stays in
 * opts.runsDir, one run folder per batch.
 */
export async function auditEnvironment(env: Environment, opts: AuditOptions): Promise<EnvironmentAudit> {
  const a = startAudit(env, opts);
  if (opts.providers.length < 2) a.notes.push(`backend parity not checked: only the ${a.first.backend} backend is available here`);
  await runOracle(a);
  const probeItems = collectProbes(a);
  const probesOf = new Map<string, ProbeItem[]>();
  for (const item of probeItems) probesOf.set(item.task.id, [...(probesOf.get(item.task.id) ?? []), item]);
  const mutating = judgingBackends(a)[0] ?? a.first;
  const plans = await planMutants(a, mutating, probesOf);
  const { probeRuns, probeScreened } = await playProbes(a, probeItems, probesOf, plans, mutating);
  await rerunOracleEverywhere(a, plans, mutating);
  const { mutantRuns, mutations } = await playMutants(a, plans, mutating);
  const findings: Findings = { probeItems, probeRuns, probeScreened, plans, mutantRuns, mutations };
  const audits: TaskAudit[] = [];
  for (const task of a.tasks) audits.push(await auditTask(a, task, findings));
  return {
    name: env.manifest.name,
    dir: env.dir,
    // What its runs record too, so that a run's dashboard never shows the audit of other content under the same name.
    ...(env.hash ? { hash: env.hash } : {}),
    domain: env.manifest.domain,
    ok: audits.every((t) => t.ok),
    min_mutation_score: env.manifest.validation.audit.min_mutation_score,
    judge: env.manifest.judge,
    tasks: audits,
    notes: a.notes,
    phases: a.phases,
  };
}

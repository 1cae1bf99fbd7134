import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Environment } from "../../core/model/environment";
import { loadEnvironment } from "../../core/environment/load-environment";
import { validateEnvironment } from "../../core/app/validate-environment";
import type { TaskVerdict } from "../../core/app/verdict";
import { createSandboxProvider } from "../../core/sandbox/create-provider";
import { imageNeed } from "../../core/sandbox/image/stand-in";
import { sandboxRequest } from "../../core/sandbox/request";
import { prepareEnvironment, providerForEnvironment } from "../../core/sandbox/select";
import type { SandboxProvider } from "../../core/model/sandbox";
import { makeDirs } from "../../core/runs/make-dirs";
import type { RunProgress } from "../../core/rollout/run-environment";

interface EnvVerdict {
  dir: string;
  name: string;
  ok: boolean;
  /** The two run folders; only while they are kept (see validateByRollouts). */
  runs?: { oracle: string; nop: string };
  tasks: TaskVerdict[];
  /** Why no sandbox could be made for it (its tasks were not rolled out). */
  error?: string;
}

/**
 * Concurrent rollouts for `validate --run` when none is given: two per CPU, at least 4. Oracle
 * and nop rollouts keep the CPUs busy with the tests themselves and wait on sandbox round trips
 * in between; more only adds containers to start and remove (measured on HumanEval: 4 beat 8
 * on 2 CPUs).
 */
export function defaultValidateConcurrency(cpus = os.availableParallelism()): number {
  return Math.max(4, 2 * cpus);
}

type ValidateRunOptions = {
  sandbox: string;
  concurrency?: number;
  tasks?: string[];
  unsafeNoSandbox?: boolean;
  json?: boolean;
  runs?: string /** false under --no-build. */;
  build?: boolean;
};

/** The ids of `--tasks` this environment has (undefined: no --tasks, so all of them). */
function namedTasks(env: Environment, tasks: string[] | undefined): string[] | undefined {
  return tasks?.filter((t) => env.tasks.some((x) => x.id === t));
}

/**
 * What `validate --run` sets going while the static checks still run: the sandbox provider,
 * and the first environment's warm sandboxes (as many as its run will use at once). Starting
 * containers took ~0.4 s before the first rollout could begin.
 */
export interface EarlyStart {
  provider: Promise<SandboxProvider>;
  /** The environments loaded so far, by folder (the run does not load them again). */
  envs: Map<string, Environment>;
  /** An environment the static checks loaded (the first one's sandboxes start now). */
  loaded(env: Environment): void;
}

export function startEarly(opts: ValidateRunOptions): EarlyStart {
  const backend = opts.sandbox === "docker" || opts.sandbox === "process" ? opts.sandbox : "auto";
  const provider = createSandboxProvider({ backend, ...(opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}) });
  provider.catch(() => {}); // the run awaits it and reports why
  const envs = new Map<string, Environment>();
  const concurrency = opts.concurrency ?? defaultValidateConcurrency();
  return {
    provider,
    envs,
    loaded(env) {
      envs.set(path.resolve(env.dir), env);
      // Only the first environment's: the others run later, one after another, and a long
      // list must not start every container it will ever need at once.
      if (envs.size > 1) return;
      const rollouts = 2 * (namedTasks(env, opts.tasks)?.length ?? env.tasks.length);
      if (rollouts === 0) return;
      // A sandbox that cannot start says why at the rollout that wanted it.
      void provider.then((p) => p.prewarm?.(sandboxRequest(env), Math.min(concurrency, rollouts))).catch(() => {});
    },
  };
}

/**
 * The provider one environment's runs use: the shared one, readied for it (its image built
 * when missing, or what a process sandbox lacks said once); under `auto`, a Docker one of its
 * own when the shared one is the process backend and only Docker can give this environment
 * its sandbox (or an error saying why there is none).
 */
async function sandboxFor(env: Environment, shared: SandboxProvider, opts: ValidateRunOptions): Promise<SandboxProvider> {
  const noBuild = opts.build === false;
  if (shared.backend === "process" && opts.sandbox !== "process" && opts.sandbox !== "docker" && imageNeed(env).dockerOnly) {
    return providerForEnvironment(env, { backend: "auto", noBuild, ...(opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}) });
  }
  await prepareEnvironment(shared, env, { noBuild });
  return shared;
}

/**
 * What `run` and `index` print while an environment is prepared (a document corpus parsed and
 * indexed: minutes on a large one, silent before), on stderr. The oracle's and nop's runs prepare
 * the same corpus; the oracle's lines are shown, and any warning of either. On a terminal the
 * parse progress lines overwrite each other.
 */
function preparationPrinter(name: string): (kind: "oracle" | "nop", e: RunProgress) => void {
  const tty = process.stderr.isTTY;
  return (kind, e) => {
    if (e.type !== "log" || (kind === "nop" && e.level === "info")) return;
    const line = `${name}: ${e.level === "info" ? "" : `${e.level}: `}${e.message}`;
    if (tty && e.level === "info" && e.message.includes(" parsed")) process.stderr.write(`\r\x1b[2K${line}`);
    else process.stderr.write(`${tty ? "\r\x1b[2K" : ""}${line}\n`);
  };
}

/** Each task's oracle and nop verdict on stdout, then the environment's count. */
function printEnvVerdicts(name: string, tasks: EnvVerdict["tasks"], min: number, max: number): void {
  for (const t of tasks) {
    const mark = !t.ok ? "✗" : t.skipped ? "⊘" : "✓";
    const note = !t.ok ? ` — ${t.problems.join("; ")}` : t.skipped ? ` — oracle not graded (${t.skipped})` : "";
    process.stdout.write(`${mark} ${name}/${t.id}: oracle ${t.oracle ?? "-"}, nop ${t.nop ?? "-"}${note}\n`);
  }
  const nSkipped = tasks.filter((t) => t.ok && t.skipped).length;
  if (nSkipped > 0)
    process.stdout.write(
      `⊘ ${name}: ${nSkipped} task${nSkipped === 1 ? "" : "s"} need a judge endpoint to grade the oracle; not counted as passed\n`,
    );
  const nFailed = tasks.filter((t) => !t.ok).length;
  const n = `${tasks.length} task${tasks.length === 1 ? "" : "s"}`;
  process.stdout.write(
    nFailed > 0 ? `✗ ${name}: ${nFailed} of ${n} failed validation\n` : `✓ ${name}: ${n} validated (oracle ≥ ${min}, nop ≤ ${max})\n`,
  );
}

/**
 * One environment's validation on its provider (the shared one, readied, or one of its own
 * added to `ownProviders`); null when --tasks names none of its tasks.
 */
async function validateOne(
  env: Environment,
  provider: SandboxProvider,
  ownProviders: SandboxProvider[],
  runsDir: string,
  opts: ValidateRunOptions,
): Promise<EnvVerdict | null> {
  const only = namedTasks(env, opts.tasks);
  if (only && only.length === 0) return null; // --tasks names none of this environment's tasks
  let envProvider: SandboxProvider;
  try {
    envProvider = await sandboxFor(env, provider, opts);
  } catch (e) {
    // Its sandbox cannot be made (no Docker for a Dockerfile, an image not built under --no-build): say why, go on with the others.
    const error = (e as Error).message;
    if (!opts.json) process.stdout.write(`✗ ${env.manifest.name}: ${error}\n`);
    return { dir: env.dir, name: env.manifest.name, ok: false, tasks: [], error };
  }
  if (envProvider !== provider) ownProviders.push(envProvider);
  const { tasks, oracle, nop, min, max } = await validateEnvironment({
    env,
    runsDir,
    concurrency: opts.concurrency ?? defaultValidateConcurrency(),
    sandbox: envProvider.backend,
    sandboxProvider: envProvider,
    ...(only ? { tasks: only } : {}),
    ...(opts.json ? {} : { onProgress: preparationPrinter(env.manifest.name) }),
  });
  if (!opts.json) printEnvVerdicts(env.manifest.name, tasks, min, max);
  return {
    dir: env.dir,
    name: env.manifest.name,
    ok: tasks.every((t) => t.ok),
    runs: { oracle: oracle.runDir, nop: nop.runDir },
    tasks,
  };
}

/**
 * Oracle/nop rollouts for `rlenv validate --run`: every task's oracle must reach
 * validation.oracle.min and its nop must stay at or below validation.nop.max.
 * The runs go to `opts.runs` when given, and stay there. Otherwise to a temporary folder
 * that is removed when every task passed, and kept when one did not: its trajectories show
 * why (the report and stderr say where). Before, every validation left its folder behind.
 */
export async function validateByRollouts(
  dirs: string[],
  opts: ValidateRunOptions,
  early: EarlyStart = startEarly(opts),
): Promise<{ ok: boolean; report: unknown }> {
  const provider = await early.provider;
  const runsDir = opts.runs ? path.resolve(opts.runs) : mkdtempSync(path.join(os.tmpdir(), "rlenv-validate-"));
  const out: EnvVerdict[] = [];
  /** Providers made for one environment the shared one cannot serve. */
  const ownProviders: SandboxProvider[] = [];
  let finished = false;
  try {
    // Inside the try: the provider already holds warm sandboxes that a refused folder must still let go.
    if (opts.runs) makeDirs(runsDir);
    for (const dir of dirs) {
      const env = early.envs.get(path.resolve(dir)) ?? loadEnvironment(dir).env;
      if (!env) continue; // static validation already reported why
      const verdict = await validateOne(env, provider, ownProviders, runsDir, opts);
      if (verdict) out.push(verdict);
    }
    finished = true;
  } finally {
    await Promise.all([provider, ...ownProviders].map((p) => p.shutdown()));
    // A run that threw keeps its folder too: what it wrote is all there is to go on.
    if (!opts.runs && finished && out.every((e) => e.ok)) rmSync(runsDir, { recursive: true, force: true });
  }
  const ok = out.every((e) => e.ok);
  if (!opts.runs && ok) {
    for (const e of out) delete e.runs;
    return { ok, report: { environments: out } };
  }
  if (!opts.json && out.length > 0) {
    const views = out.flatMap((e) =>
      e.runs ? [`  rlenv view ${e.runs.oracle}   # ${e.name}, oracle`, `  rlenv view ${e.runs.nop}   # ${e.name}, nop`] : [],
    );
    process.stderr.write(`trajectories kept in ${runsDir}:\n${views.join("\n")}\n`);
  }
  return { ok, report: { runs_dir: runsDir, environments: out } };
}

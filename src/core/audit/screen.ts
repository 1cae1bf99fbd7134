import { randomBytes } from "node:crypto";
import path from "node:path";
import { SIMPLE_COMMAND } from "../domains/code/sandbox-files";
import { findDomain } from "../domains/registry";
import type { Verifier } from "../model/domain";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { scoreRollout } from "../reward/score";
import { rewardFor } from "../reward/task-reward";
import type { ExecOptions, ExecResult, Sandbox } from "../model/sandbox";
import type { Solution } from "../schema/task";
import type { VerifierConfig } from "../schema/verifier";
import { judgedCommand } from "../reward/judged-command";
import { taskSeed } from "../sandbox/task-files";

/** One command the task's reward list runs, as the in-sandbox screen (rlenv_screen.py) runs it. */
export interface ScreenStep {
  argv: string[];
  /** The argv the verifier itself runs for the same command (judged-command.ts: globs named, a hidden check isolated), which the replay expects. */
  judged?: string[];
  hidden: Record<string, string>;
  stdin: string | null;
  timeout_ms: number;
  report: string | null;
  /** Variables added to the step's environment (the equivalence check's tracer); absent for a verifier's own run. */
  env?: Record<string, string>;
}

/** How the screen runs a task's verifier: its steps, and what scoring their results needs. */
export interface ScreenPlan {
  seed: Record<string, string>;
  steps: ScreenStep[];
  configs: VerifierConfig[];
  verifiers: readonly Verifier[];
  defaultTimeoutMs: number;
  /** The sentinel the screen gives every command that wants one; the replay swaps in the verifier's own. */
  token: string;
  /** How long a candidate's step may run in the screen, relative to the gold's (see SCREEN_BUDGET). */
  budget: { factor: number; min_ms: number };
}

/**
 * A candidate still running after ten times the gold's time for the same step (at least 1 s)
 * is stopped in the screen and played as a rollout under the verifier's real timeout. The
 * screen runs candidates one after another, so a mutant that loops forever would hold every
 * later one for the whole timeout; rollouts run side by side. The screen never judges a run it
 * did not see end: a slow but correct candidate still gets the verdict the real verifier gives.
 * The floor only guards a gold too quick to time against noise; every probe that sleeps past
 * the timeout and every looping mutant waits it out here, so a higher floor costs the audit
 * that much per task (3 s made the sleep probe alone a sixth of the screen's time).
 */
export const SCREEN_BUDGET = { factor: 10, min_ms: 1000 };

/** What the screen plays before the verifier's commands: a candidate's files, then an agent's actions (a probe's turns). */
export interface ScreenCandidate {
  files: Record<string, string>;
  actions?: Array<{ argv: string[]; timeout_ms: number } | { write: string; text: string }>;
}

/** One step's run as the screen recorded it (base64 decoded), its output cut as the sandbox cuts it. */
export interface ScreenRun {
  status: "ok" | "timeout" | "killed";
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Bytes each stream wrote in all (more than kept when the output passed the sandbox's limit). */
  stdoutBytes: number;
  stderrBytes: number;
  /** Bytes of the two streams kept. */
  keptBytes: number;
  durationMs: number;
  report: Buffer | null;
}

/** A candidate the screen cannot judge: it goes through a real rollout instead. */
export class Unscreenable extends Error {}

const onlyText = (map: Record<string, unknown> | undefined, what: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) {
    // The screen writes text with the default mode: bytes and executable bits would be lost.
    if (typeof v !== "string")
      throw new Unscreenable(`${what} ${k} is ${v && typeof v === "object" && "text" in v ? "executable" : "binary"}`);
    out[k] = v;
  }
  return out;
};

/** The argv a sandbox runs for a command line: plain words as such, anything else through a shell. */
export function argvOf(command: string | string[], shell: string): string[] {
  if (Array.isArray(command)) return command;
  return SIMPLE_COMMAND.test(command) ? command.split(" ") : [shell, "-c", command];
}

/**
 * The screen's plan for a task, or why it cannot stand in for a rollout: it can when every
 * component of the task's reward list is a `tests` verifier that runs a command (not stdio
 * cases), the task is one stage with text files only, and its domain sets nothing up per
 * rollout. The code domain's tests verifier stops its command a little before its own
 * deadline (tests-verifier.ts); the screen's timeout is that budget, the replay checks it.
 */
export async function screenPlan(env: Environment, task: LoadedTask): Promise<ScreenPlan | { unscreenable: string }> {
  const domainName = env.manifest.domain;
  if (domainName !== "code" && domainName !== "custom") return { unscreenable: `the ${domainName} domain` };
  if (task.stages) return { unscreenable: "a task of several steps" };
  const domain = await findDomain(domainName);
  if (domain?.setup) return { unscreenable: "the domain sets each rollout up" };
  const configs = rewardFor(env.manifest.reward, task);
  if (configs.length === 0) return { unscreenable: "no reward component" };
  const token = `rlenv-sentinel-${randomBytes(12).toString("hex")}`;
  const defaultTimeoutMs = Math.max(env.manifest.sandbox.timeouts.step * 1000, 60_000);
  const steps: ScreenStep[] = [];
  try {
    const seed = onlyText(taskSeed(task), "seed file");
    const hidden = onlyText(task.tests?.files, "hidden file");
    for (const c of configs) {
      if (c.type !== "tests" || c.format === "stdio")
        return { unscreenable: `a ${c.type}${c.type === "tests" ? " (stdio)" : ""} verifier` };
      const command = task.tests?.command ?? c.command;
      if (!command) return { unscreenable: "a tests verifier with no command" };
      const timeoutMs = c.timeout !== undefined ? c.timeout * 1000 : defaultTimeoutMs;
      const code = domainName === "code";
      steps.push({
        argv: argvOf(command, code ? "bash" : "sh"),
        judged: argvOf(judgedCommand(command, Object.keys(hidden)), code ? "bash" : "sh"),
        hidden,
        stdin: c.sentinel ? `${token}\n` : null,
        timeout_ms: code ? Math.max(500, Math.min(timeoutMs - 2000, timeoutMs * 0.8)) : timeoutMs,
        report: c.report ?? null,
      });
    }
    return { seed, steps, configs, verifiers: domain?.verifiers ?? [], defaultTimeoutMs, token, budget: SCREEN_BUDGET };
  } catch (e) {
    if (e instanceof Unscreenable) return { unscreenable: e.message };
    throw e;
  }
}

/** The files a candidate solution leaves in the workdir, for the screen; throws Unscreenable for one the oracle would do more with. */
export function candidateFiles(solution: Solution): Record<string, string> {
  if (solution.patch || solution.commands?.length || solution.tool_calls?.length)
    throw new Unscreenable("the solution is more than files (a patch, commands or tool calls)");
  return onlyText(solution.files, "solution file");
}

/**
 * A sandbox that answers the verifier's commands with what the screen recorded, in order: the
 * real verifier code then scores the recorded runs exactly as it scores live ones. Anything
 * the recording cannot answer (another command, a longer timeout than the screen allowed, a
 * file it did not read) is Unscreenable.
 */
class ReplaySandbox implements Sandbox {
  readonly id = "audit-screen-replay";
  private next = 0;
  private last: { step: ScreenStep; run: ScreenRun } | undefined;
  /** Why the recording could not answer (the verifier turns the throw into an error component; this keeps it apart). */
  failure: string | undefined;
  constructor(
    readonly backend: "docker" | "process",
    readonly workdir: string,
    private readonly plan: ScreenPlan,
    private readonly runs: ScreenRun[],
  ) {}

  async exec(command: string | string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const i = this.next++;
    const step = this.plan.steps[i];
    const run = this.runs[i];
    if (!step || !run) this.fail("the verifier ran more commands than the screen did");
    const asked = argvOf(command, step.argv[0] === "sh" ? "sh" : "bash");
    if (JSON.stringify(asked) !== JSON.stringify(step.judged ?? step.argv)) this.fail(`the verifier ran ${JSON.stringify(asked)}`);
    const total = run.stdoutBytes + run.stderrBytes;
    const kept = run.keptBytes;
    // Cut output is as the sandbox's only when one stream wrote (with both, where the cut falls depends on timing).
    if (total > kept && run.stdoutBytes > 0 && run.stderrBytes > 0) this.fail("both streams passed the sandbox's output limit");
    const stdin = opts.stdin === undefined ? null : opts.stdin.toString();
    if ((stdin === null) !== (step.stdin === null)) this.fail("the verifier's stdin differs from the screen's");
    const token = stdin?.trim() ?? "";
    const swap = (s: string) => (step.stdin === null ? s : s.split(this.plan.token).join(token));
    const timeoutMs = opts.timeoutMs ?? Number.POSITIVE_INFINITY;
    this.last = { step, run };
    const marker = total > kept ? `\n[output truncated: kept ${kept} of ${total} bytes]\n` : "";
    const base = {
      stdout: swap(run.stdout) + marker,
      stderr: swap(run.stderr),
      durationMs: run.durationMs,
      ...(marker ? { truncated: { originalBytes: total } } : {}),
    };
    if (run.status === "timeout" || run.durationMs > timeoutMs) {
      if (run.status === "timeout" && timeoutMs > step.timeout_ms + 50) this.fail("the verifier allows longer than the screen did");
      return { ...base, status: "timeout", exitCode: null, reason: `killed after ${Math.round(timeoutMs / 1000)} s timeout` };
    }
    if (run.status === "killed") return { ...base, status: "killed", exitCode: null, reason: "killed by a signal" };
    return { ...base, status: "ok", exitCode: run.exitCode };
  }

  /** Every command the screen ran was asked for. */
  usedAll(): boolean {
    return this.next === this.plan.steps.length;
  }

  private fail(why: string): never {
    this.failure ??= why;
    throw new Unscreenable(why);
  }

  async writeFiles(): Promise<void> {}

  async putWorkdirFiles(): Promise<{ ok: true }> {
    return { ok: true };
  }

  async readFiles(paths: string[]): Promise<Record<string, Buffer | null>> {
    const out: Record<string, Buffer | null> = {};
    for (const p of paths) {
      if (!this.last || this.last.step.report !== p) this.fail(`the verifier read ${p}`);
      out[p] = this.last.run.report;
    }
    return out;
  }

  async diff(): Promise<never> {
    this.fail("the verifier asked for the workdir's changes");
  }

  async reset(): Promise<never> {
    this.fail("the verifier reset the sandbox");
  }

  async close(): Promise<void> {}
}

/**
 * What the task's real reward list scores on one candidate's recorded runs: the total a rollout
 * would get, or null when the recording cannot answer what the verifiers ask.
 */
export async function replayScore(
  env: Environment,
  task: LoadedTask,
  plan: ScreenPlan,
  runs: ScreenRun[],
  sandbox: { backend: "docker" | "process"; workdir: string },
): Promise<number | null> {
  const replay = new ReplaySandbox(sandbox.backend, sandbox.workdir, plan, runs);
  const score = await scoreRollout(
    plan.configs,
    {
      env,
      task,
      sandbox: async () => replay,
      state: new Map(),
      answer: undefined,
      events: [],
      signal: new AbortController().signal,
    },
    plan.verifiers,
    plan.defaultTimeoutMs,
  );
  return replay.failure === undefined && replay.usedAll() ? score.total : null;
}

/** What screenSolutions needs of a workbench (MutationWorkbench): its sandbox's place and its one-exec screen. */
export interface ScreenBench {
  readonly backend: "docker" | "process";
  readonly workdir: string;
  screen(plan: ScreenPlan, candidates: ScreenCandidate[]): Promise<Array<ScreenRun[] | null> | { failed: string }>;
}

/**
 * The reward the task's verifier gives the gold solution and each candidate, from one exec of
 * the screen in the workbench and the real verifiers replayed on what it recorded: null for a
 * candidate the recording cannot judge; `skipped` when the screen cannot stand in at all.
 */
export async function screenSolutions(
  bench: ScreenBench,
  env: Environment,
  task: LoadedTask,
  gold: Solution,
  candidates: Solution[],
): Promise<{ gold: number | null; rewards: Array<number | null> } | { skipped: string }> {
  const plan = await screenPlan(env, task);
  if ("unscreenable" in plan) return { skipped: `not screened: ${plan.unscreenable}` };
  const files: Array<Record<string, string> | null> = [];
  for (const s of [gold, ...candidates]) {
    try {
      files.push(candidateFiles(s));
    } catch (e) {
      if (!(e instanceof Unscreenable)) throw e;
      files.push(null);
    }
  }
  if (files[0] === null) return { skipped: "not screened: the reference solution is more than files" };
  const wanted = files.flatMap((f, i) => (f ? [i] : []));
  const runs = await bench.screen(
    plan,
    wanted.map((i) => ({ files: files[i] as Record<string, string> })),
  );
  if ("failed" in runs) return { skipped: `not screened: ${runs.failed}` };
  const rewards: Array<number | null> = files.map(() => null);
  for (const [k, i] of wanted.entries()) {
    const recorded = runs[k];
    if (recorded) rewards[i] = await replayScore(env, task, plan, recorded, bench);
  }
  return { gold: rewards[0] ?? null, rewards: rewards.slice(1) };
}

/** Whether the screen can rerun a task's oracle: its verifiers are screenable and its reference solution is files (or a patch) only. */
export async function oracleScreenable(env: Environment, task: LoadedTask): Promise<boolean> {
  const s = task.solution;
  if (!s || !(s.files || s.patch) || s.commands?.length || s.tool_calls?.length) return false;
  return !("unscreenable" in (await screenPlan(env, task)));
}

/**
 * A probe's turns as screen actions (bash commands as the bash tool runs them, write_file as
 * a file written in the workdir), ending in a submit; null when it does anything else, which
 * only a rollout can play.
 */
export function probeActions(
  turns: ReadonlyArray<{ calls: ReadonlyArray<{ name: string; arguments: string }> }>,
  stepMs: number,
): ScreenCandidate["actions"] | null {
  const calls = turns.flatMap((t) => t.calls);
  const last = calls.at(-1);
  if (last?.name !== "submit") return null;
  const actions: NonNullable<ScreenCandidate["actions"]> = [];
  for (const c of calls.slice(0, -1)) {
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(c.arguments) as Record<string, unknown>;
    } catch {
      return null;
    }
    if (c.name === "bash" && typeof args.command === "string") {
      const asked = typeof args.timeout === "number" && args.timeout > 0 ? args.timeout * 1000 : stepMs;
      actions.push({ argv: ["bash", "-c", args.command], timeout_ms: Math.min(stepMs, asked) });
    } else if (c.name === "write_file" && typeof args.path === "string" && typeof args.content === "string") {
      const rel = path.posix.normalize(args.path);
      if (rel.startsWith("/") || rel === "." || rel.startsWith("../") || rel === "..") return null;
      actions.push({ write: rel, text: args.content });
    } else return null;
  }
  return actions;
}

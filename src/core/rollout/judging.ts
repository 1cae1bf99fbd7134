import type { Verifier, VerifyContext } from "../model/domain";
import type { LoadedTask } from "../model/environment";
import { scanSubmission } from "../reward/hack-signals";
import { ISOLATED_PYTHON_ENV } from "../reward/judged-command";
import { type Score, scoreRollout } from "../reward/score";
import { readSubmission, type Submission } from "../reward/submission";
import { sandboxFiles } from "../model/file-content";
import { seedMap } from "../sandbox/diff";
import { EXECUTABLE_MODE, markExecutable, taskSeed } from "../sandbox/task-files";
import type { ExecOptions, Sandbox } from "../model/sandbox";
import type { HackSignal } from "../schema/trajectory";
import type { VerifierConfig } from "../schema/verifier";
import { observe } from "../util/observations";
import type { RolloutScope } from "./rollout-scope";

/** Verifier types that run code in a sandbox: their judging sandbox is ready before they start. */
const RUNS_CODE = new Set(["tests", "script"]);

/** Signals kept in a reward event: enough to read what happened, bounded however many files raise one. */
const MAX_RECORDED_SIGNALS = 50;

export interface Judgement extends Score {
  judgedIn: "fresh" | "agent";
  signals: HackSignal[];
  /** What was done with the signals: set when there were any. */
  action?: "flag" | "zero";
}

/**
 * A judging sandbox as verifiers get it: every exec with Python's isolation variables under the
 * caller's own, and the verifiers' "stop what the agent left running" a no-op until something
 * has run in it (it was just reset, which stopped everything: a round trip saved per judgement).
 */
function judgingSandbox(sb: Sandbox): Sandbox {
  let ran = false;
  const exec = (command: string | string[], opts: ExecOptions = {}) => {
    ran = true;
    return sb.exec(command, { ...opts, env: { ...ISOLATED_PYTHON_ENV, ...(opts.env ?? {}) } });
  };
  const stopProcesses = async (): Promise<string[]> => (ran && sb.stopProcesses ? sb.stopProcesses() : []);
  return new Proxy(sb, {
    get(target, prop, receiver) {
      if (prop === "exec") return exec;
      if (prop === "stopProcesses") return stopProcesses;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/**
 * Scores a rollout (or a stage of it) where the environment says (`judge.sandbox`): `fresh`,
 * every verifier that asks for a sandbox gets one new sandbox from the pool holding only the
 * submission (readSubmission), so nothing the policy left running, cached or hooked in its own
 * sandbox takes part; `agent`, the agent's own sandbox (whose verifiers stop its processes
 * first). The submission is scanned for hack signals before any verifier runs; with
 * `judge.hack_signals: zero` a rollout that raised one scores 0.
 */
export async function judgeRollout(
  scope: RolloutScope,
  rewards: readonly VerifierConfig[],
  ctx: Omit<VerifyContext, "timeoutMs" | "sandbox">,
  verifiers: readonly Verifier[],
  timeoutMs: number,
): Promise<Judgement> {
  const judge = ctx.env.manifest.judge;
  const task = ctx.task;
  const hidden = Object.keys(task.tests?.files ?? {});
  // A rollout whose tools never started a sandbox left no files: nothing to scan or copy.
  const hasFiles = scope.started;
  let submission: Promise<Submission> | null = null;
  const submitted = () => {
    // A rollout that never started its sandbox submits the task's seed as it is: no sandbox is started to read it.
    submission ??= hasFiles
      ? scope.sandbox().then((sb) => readSubmission(sb, taskSeed(task), task.tests?.files))
      : Promise.resolve(seedSubmission(task));
    return submission;
  };
  let fresh: Promise<Sandbox> | null = null;
  const freshSandbox = () => {
    fresh ??= submitted().then(async (sub) => {
      const sb = await scope.freshSandbox(sub.files);
      await markKeptExecutables(sb, task, sub);
      if (hasFiles) await markChangedExecutables(await scope.sandbox(), sb, sub);
      return judgingSandbox(sb);
    });
    return fresh;
  };
  try {
    const signals = hasFiles && judge.hack_signals !== "off" ? scanSubmission(await submitted(), hidden) : [];
    // Started before the verifiers' clocks: the pool's hand-over is the machinery's time, not the verifier's timeout.
    if (judge.sandbox === "fresh" && rewards.some((r) => RUNS_CODE.has(r.type))) await freshSandbox();
    const sandbox = judge.sandbox === "fresh" ? freshSandbox : scope.sandbox;
    const score = await scoreRollout(rewards, { ...ctx, sandbox }, verifiers, timeoutMs);
    for (const s of new Set(signals.map((x) => x.signal))) observe({ kind: "hack-signal", signal: s });
    if (signals.length === 0) return { ...score, judgedIn: judge.sandbox, signals };
    const action = judge.hack_signals === "zero" ? "zero" : "flag";
    return { ...score, total: action === "zero" ? 0 : score.total, judgedIn: judge.sandbox, signals, action };
  } finally {
    const sb = fresh ? await (fresh as Promise<Sandbox>).catch(() => null) : null;
    if (sb) await scope.release(sb);
  }
}

/** The submission of a rollout that left the seed untouched. */
function seedSubmission(task: LoadedTask): Submission {
  const files = Object.fromEntries([...seedMap(sandboxFiles(taskSeed(task)))]);
  return { files, changed: new Map(), dropped: [] };
}

/** The task's executable seed files the submission kept as they were get their mode back (a reset writes none). */
async function markKeptExecutables(sb: Sandbox, task: LoadedTask, sub: Submission): Promise<void> {
  const seed = taskSeed(task);
  const kept = Object.fromEntries(Object.entries(seed).filter(([p]) => sub.files[p] !== undefined && !sub.changed.has(p)));
  await markExecutable(sb, kept);
}

/** At most this many changed files are asked for their mode (one exec's argv; a submission rarely changes more). */
const MAX_MODE_CHECKS = 2000;

/**
 * The files the policy wrote or changed that are executable in its sandbox (a script the oracle
 * or the agent made and chmod'ed, which a check runs as ./go.sh) are written executable in the
 * judging sandbox too: the submission is read as bytes, and a reset writes no mode.
 */
async function markChangedExecutables(agent: Sandbox, judging: Sandbox, sub: Submission): Promise<void> {
  const paths = [...sub.changed.keys()].filter((p) => sub.files[p] !== undefined).slice(0, MAX_MODE_CHECKS);
  if (paths.length === 0) return;
  const script = 'for f do [ -f "$f" ] && [ -x "$f" ] && printf "%s\\0" "$f"; done; exit 0';
  const r = await agent.exec(["sh", "-c", script, "sh", ...paths], { timeoutMs: 10_000 });
  if (r.status !== "ok") return;
  const marked: Record<string, string | Buffer> = {};
  for (const p of r.stdout.split("\0")) {
    const content = p ? sub.files[p] : undefined;
    if (content !== undefined) marked[p] = content;
  }
  if (Object.keys(marked).length > 0) await judging.writeFiles(marked, { mode: EXECUTABLE_MODE });
}

/** The reward event's fields for a judgement: where it was judged, and its signals when it raised any. */
export function judgedFields(score: Score | Judgement): {
  judged_in?: "fresh" | "agent";
  hack_signals?: HackSignal[];
  hack_action?: "flag" | "zero";
} {
  if (!("judgedIn" in score)) return {};
  return {
    judged_in: score.judgedIn,
    ...(score.signals.length > 0 ? { hack_signals: score.signals.slice(0, MAX_RECORDED_SIGNALS) } : {}),
    ...(score.action ? { hack_action: score.action } : {}),
  };
}

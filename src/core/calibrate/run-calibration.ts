import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Environment } from "../model/environment";
import { writeJsonAtomic } from "../runs/run-dir";
import { type RunProgress, runEnvironment } from "../rollout/run-environment";
import type { SandboxProvider } from "../model/sandbox";
import { CALIBRATION_FILE, type CalibrationReport, type LabelProblem } from "../schema/calibration";
import { type AcceptRule, type CalibrationLabel, DEFAULT_ACCEPT_WORDS, readLabels } from "./labels";
import { labelPolicy, type SubmitOptions, submittedText } from "./label-policy";
import { renderCalibrationMarkdown } from "./report-md";
import { type GradedLabel, tally } from "./tally";

export interface CalibrateOptions extends Partial<SubmitOptions> {
  env: Environment;
  labelsFile: string;
  accept: AcceptRule;
  /** The verifier accepts a reward at or above this (default 1: full marks). */
  rewardAt?: number;
  runsDir: string;
  runId?: string;
  sandbox?: "docker" | "process" | "auto";
  concurrency?: number;
  maxFalseAccept?: number;
  maxFalseReject?: number;
  signal?: AbortSignal;
  onProgress?: (e: RunProgress) => void;
  sandboxProvider?: SandboxProvider;
}

export interface CalibrateResult {
  report: CalibrationReport;
  runDir: string | null;
  /** 0 agreed within the bars, 1 a bar was missed, 2 bad input (some labels were not read). */
  exitCode: 0 | 1 | 2;
}

/** Labels grouped by task, each task's labels its samples 0…n-1 in file order. */
function byTask(labels: readonly CalibrationLabel[]): Map<string, CalibrationLabel[]> {
  const m = new Map<string, CalibrationLabel[]>();
  for (const l of labels) m.set(l.task, [...(m.get(l.task) ?? []), l]);
  return m;
}

/** Bars given and missed, by the false-accept and false-reject rates. */
function bars(report: Pick<CalibrationReport, "overall">, o: CalibrateOptions): CalibrationReport["bars"] {
  const missed: string[] = [];
  const fa = report.overall.false_accept_rate.rate;
  const fr = report.overall.false_reject_rate.rate;
  if (o.maxFalseAccept !== undefined && fa !== null && fa > o.maxFalseAccept)
    missed.push(`false-accept rate ${(fa * 100).toFixed(1)}% is over --max-false-accept ${(o.maxFalseAccept * 100).toFixed(1)}%`);
  if (o.maxFalseReject !== undefined && fr !== null && fr > o.maxFalseReject)
    missed.push(`false-reject rate ${(fr * 100).toFixed(1)}% is over --max-false-reject ${(o.maxFalseReject * 100).toFixed(1)}%`);
  return {
    ...(o.maxFalseAccept !== undefined ? { max_false_accept: o.maxFalseAccept } : {}),
    ...(o.maxFalseReject !== undefined ? { max_false_reject: o.maxFalseReject } : {}),
    missed,
  };
}

/**
 * Runs every label through the environment's real reward path (a rollout that submits the
 * label's answer with the environment's own submit tool, or replays its trajectory, in one run
 * folder like `rlenv run`'s) and measures how the reward agrees with the people who labelled
 * them. Writes calibration.json (the run dashboard shows it) and calibration.md into the run folder.
 */
export async function calibrate(o: CalibrateOptions): Promise<CalibrateResult> {
  const read = readLabels(o.labelsFile, o.accept);
  const problems: LabelProblem[] = [...read.problems];
  const taskIds = new Set(o.env.tasks.map((t) => t.id));
  const known = read.labels.filter((l) => {
    if (taskIds.has(l.task)) return true;
    problems.push({ file: o.labelsFile, line: l.line, field: "task", message: `no task '${l.task}' in ${o.env.manifest.name}` });
    return false;
  });
  const submit: SubmitOptions = {
    finalSentence: o.finalSentence ?? false,
    field: o.field ?? "answer",
    citeEvidence: o.citeEvidence ?? false,
  };
  const rewardAt = o.rewardAt ?? 1;
  const groups = byTask(known);
  let runDir: string | null = null;
  const graded: GradedLabel[] = [];
  if (known.length > 0) {
    const run = await runEnvironment({
      env: o.env,
      config: {
        policy: { kind: "replay", replay: path.resolve(o.labelsFile) },
        k: Math.max(...[...groups.values()].map((g) => g.length)),
        samples: Object.fromEntries([...groups].map(([t, ls]) => [t, ls.map((_, i) => i)])),
        concurrency: o.concurrency ?? 8,
        sandbox: o.sandbox ?? "auto",
      },
      runsDir: o.runsDir,
      ...(o.runId ? { runId: o.runId } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...(o.sandboxProvider ? { sandboxProvider: o.sandboxProvider } : {}),
      policyFactory: ({ task, sample }) => labelPolicy(groups.get(task.id)![sample]!, task, o.env, submit),
    });
    runDir = run.runDir;
    for (const r of run.rollouts) {
      const label = groups.get(r.task)?.[r.sample];
      if (label)
        graded.push({ label, rollout: r, submitted: label.trajectory ? `(replayed ${label.trajectory})` : submittedText(label, submit) });
    }
    graded.sort((a, b) => a.label.line - b.label.line);
  }
  const t = tally(graded, rewardAt, runDir ?? ".");
  const partial = {
    created: new Date().toISOString(),
    env: { name: o.env.manifest.name, hash: o.env.hash },
    labels: path.resolve(o.labelsFile),
    run_dir: runDir ?? "",
    answers: submit.finalSentence ? ("final-sentence" as const) : ("whole" as const),
    accept: { labels: [...(o.accept.labels ?? DEFAULT_ACCEPT_WORDS)], score_at: o.accept.scoreAt, reward_at: rewardAt },
    counts: { lines: read.lines, graded: t.overall.n, not_graded: t.notGraded.length, bad: problems.length },
    overall: t.overall,
    components: t.components,
    fields: t.fields,
    groups: t.groups,
    disagreements: t.disagreements,
    not_graded: t.notGraded,
    problems: problems.sort((a, b) => a.line - b.line),
  };
  const report: CalibrationReport = { ...partial, bars: bars(partial, o) };
  if (runDir) {
    writeJsonAtomic(path.join(runDir, CALIBRATION_FILE), report);
    writeFileSync(path.join(runDir, "calibration.md"), renderCalibrationMarkdown(report));
  }
  const exitCode = problems.length > 0 ? 2 : report.bars.missed.length > 0 ? 1 : 0;
  return { report, runDir, exitCode };
}

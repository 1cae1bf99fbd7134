import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Command, Option } from "commander";
import { calibrateEnvironment } from "../../core/app/calibrate-environment";
import { kappaText, rateText, renderCalibrationMarkdown } from "../../core/calibrate/report-md";
import type { Environment } from "../../core/model/environment";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { CALIBRATION_FILE } from "../../core/schema/calibration";
import { progressPrinter } from "./run-progress";

interface CalibrateCliOptions {
  labels: string;
  finalSentence?: boolean;
  field: string;
  citeEvidence?: boolean;
  acceptLabel?: string[];
  acceptScore: number;
  rewardAt: number;
  maxFalseAccept?: number;
  maxFalseReject?: number;
  out?: string;
  runs: string;
  runId?: string;
  sandbox: string;
  concurrency: number;
  judgeBaseUrl?: string;
  judgeModel?: string;
  json?: boolean;
}

/** "0.05" or "5%" as a fraction in [0, 1]. */
export function parseRateBar(flag: string) {
  return (v: string): number => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(v);
    const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
    if (!(n >= 0 && n <= 1)) throw new Error(`${flag} must be a rate between 0 and 1 (or 0% to 100%), got '${v}'`);
    return n;
  };
}

const num = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${flag} must be a number, got '${v}'`);
  return n;
};

const list = (v: string, prev: string[] | undefined) => [
  ...(prev ?? []),
  ...v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
];

/** The environment to calibrate, or an error naming its problems (printed first). */
function loadForCalibration(dir: string, o: CalibrateCliOptions): Environment {
  if (!existsSync(o.labels)) throw new Error(`--labels ${o.labels}: no such file`);
  if (!["docker", "process", "auto"].includes(o.sandbox)) throw new Error(`--sandbox must be docker, process or auto, got '${o.sandbox}'`);
  const { env, problems } = loadEnvironment(dir);
  const errors = problems.filter((p) => p.severity === "error");
  if (!env || errors.length > 0) {
    for (const p of errors) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
    throw new Error(
      `${dir}: the environment has ${errors.length} problem${errors.length === 1 ? "" : "s"}; fix them first (rlenv validate)`,
    );
  }
  return env;
}

/** The calibration in a few lines on stdout: counts, error rates, κ, missed bars, where the report is. */
function printSummary(report: Awaited<ReturnType<typeof calibrateEnvironment>>["report"], runDir: string | null | undefined): void {
  const r = report.overall;
  process.stdout.write(
    [
      `${report.env.name}: ${report.counts.graded} labels graded (${report.answers === "whole" ? "whole replies" : "final sentences"}), ${report.counts.not_graded} not graded, ${report.counts.bad} bad`,
      `false accepts ${rateText(r.false_accept_rate)}`,
      `false rejects ${rateText(r.false_reject_rate)}`,
      `κ ${kappaText(r.kappa)}; ${report.disagreements.length} disagreement${report.disagreements.length === 1 ? "" : "s"}`,
      ...report.bars.missed.map((m) => `bar missed: ${m}`),
      runDir ? `${path.join(runDir, "calibration.md")}` : "",
    ]
      .filter(Boolean)
      .join("\n") + "\n",
  );
}

/** `rlenv calibrate DIR --labels FILE`: the labels through the reward, the report written and summed up, exit by the bars. */
async function runCalibrate(dir: string, o: CalibrateCliOptions): Promise<void> {
  const env = loadForCalibration(dir, o);
  // The judge comparator reads its endpoint from the verifier's settings, else these.
  if (o.judgeBaseUrl) process.env.RLENV_JUDGE_BASE_URL = o.judgeBaseUrl;
  if (o.judgeModel) process.env.RLENV_JUDGE_MODEL = o.judgeModel;
  const printer = progressPrinter(process.stderr, true);
  const { report, runDir, exitCode } = await calibrateEnvironment({
    env,
    labelsFile: o.labels,
    accept: { ...(o.acceptLabel ? { labels: o.acceptLabel } : {}), scoreAt: o.acceptScore },
    rewardAt: o.rewardAt,
    finalSentence: o.finalSentence === true,
    field: o.field,
    citeEvidence: o.citeEvidence === true,
    runsDir: o.runs,
    ...(o.runId ? { runId: o.runId } : {}),
    sandbox: o.sandbox as "docker" | "process" | "auto",
    concurrency: Math.max(1, Math.floor(o.concurrency)),
    ...(o.maxFalseAccept !== undefined ? { maxFalseAccept: o.maxFalseAccept } : {}),
    ...(o.maxFalseReject !== undefined ? { maxFalseReject: o.maxFalseReject } : {}),
    onProgress: printer.onProgress,
  });
  printer.finish();
  const md = renderCalibrationMarkdown(report);
  if (o.out) {
    mkdirSync(o.out, { recursive: true });
    writeFileSync(path.join(o.out, CALIBRATION_FILE), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(o.out, "calibration.md"), md);
  }
  for (const p of report.problems) process.stderr.write(`${p.file}:${p.line}: ${p.field}: ${p.message}\n`);
  if (o.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printSummary(report, runDir);
  process.exitCode = exitCode;
}

export function registerCalibrate(program: Command): void {
  program
    .command("calibrate")
    .description(
      "Measure how the reward agrees with people: labelled answers run through the real reward path (confusion matrix, false accepts/rejects with intervals, Cohen's κ); exit 1 under a bar, 2 on bad labels",
    )
    .argument("[dir]", "environment folder", ".")
    .requiredOption("--labels <file>", "JSONL of labelled answers ({task, answer|trajectory, verdict}, or FinanceBench's results lines)")
    .option(
      "--final-sentence",
      "submit each reply's final sentence (the label's final_answer, else its last sentence), not the whole reply",
    )
    .option("--field <name>", "the report field a text answer goes in", "answer")
    .option("--cite-evidence", "cite the task's evidence pages when a label's report cites none")
    .option(
      "--accept-label <words>",
      "verdict words that mean accept (comma-separated, repeatable); every other word then means reject",
      list,
    )
    .option("--accept-score <x>", "a numeric verdict accepts at or above this", num("--accept-score"), 1)
    .option("--reward-at <x>", "the verifier accepts a reward at or above this", num("--reward-at"), 1)
    .option("--max-false-accept <rate>", "exit 1 when the false-accept rate is over this (0.02 or 2%)", parseRateBar("--max-false-accept"))
    .option("--max-false-reject <rate>", "exit 1 when the false-reject rate is over this (0.05 or 5%)", parseRateBar("--max-false-reject"))
    .option("--out <dir>", "also write calibration.json and calibration.md here")
    .option("--runs <dir>", "where the run folder of the graded rollouts goes", "runs")
    .option("--run-id <id>", "name of that run folder")
    .addOption(new Option("--sandbox <backend>", "docker, process or auto").choices(["auto", "docker", "process"]).default("auto"))
    .option("--concurrency <n>", "rollouts at once", num("--concurrency"), 8)
    .option("--judge-base-url <url>", "judge rubrics: the OpenAI-compatible judge (else RLENV_JUDGE_BASE_URL)")
    .option("--judge-model <name>", "judge rubrics: the judge's model (else RLENV_JUDGE_MODEL)")
    .option("--json", "print calibration.json on stdout")
    .action(runCalibrate);
}

import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { LabelProblem, Verdict } from "../schema/calibration";

/**
 * The labels file of `rlenv calibrate`: JSONL, one labelled answer a line (docs/reference.md,
 * "Calibration labels"). A line is either the native form
 *   {"task": "fb-00499", "answer": "…", "verdict": "accept"}
 * (`answer` text or a report object, or `trajectory`: a rollout file to replay; optional
 * `final_answer`, `fields` {field: verdict}, `group`), or a line of FinanceBench's reviewed
 * results (patronus-ai/financebench `results/*.jsonl`, ../shared/datasets/financebench-labels),
 * read as it is: see fromFinanceBench.
 */

const VerdictValue = z.union([z.string(), z.number(), z.boolean()]);

export const LabelLine = z.strictObject({
  task: z.string().min(1).describe("The task id in the environment"),
  answer: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe("The answer as text (goes in the report's answer field) or the whole report object"),
  final_answer: z.string().optional().describe("The reply's final sentence, submitted under --final-sentence"),
  trajectory: z.string().optional().describe("A rollout file (.jsonl) to replay instead of an answer; relative to the labels file"),
  verdict: VerdictValue.describe("The person's verdict: a word (accept/reject, correct/incorrect…), a boolean or a score"),
  fields: z.record(z.string(), VerdictValue).optional().describe("Per report field verdicts, where the person gave them"),
  group: z.string().optional().describe("A group to break the figures down by (a model, a configuration)"),
});
export type LabelLine = z.infer<typeof LabelLine>;

export interface CalibrationLabel {
  /** 1-based line in the labels file. */
  line: number;
  task: string;
  answer?: string | Record<string, unknown>;
  finalAnswer?: string;
  /** Absolute path of the rollout to replay. */
  trajectory?: string;
  verdict: Verdict;
  fields: Record<string, Verdict>;
  group?: string;
}

/** Which human verdicts count as "accept". */
export interface AcceptRule {
  /** Words that mean accept (compared without case); when given, every other word means reject. */
  labels?: readonly string[];
  /** A numeric verdict accepts at or above this (default 1). */
  scoreAt: number;
}

export const DEFAULT_ACCEPT_WORDS = ["accept", "accepted", "correct", "correct answer", "right", "pass", "passed", "yes", "true"];
const DEFAULT_REJECT_WORDS = [
  "reject",
  "rejected",
  "incorrect",
  "incorrect answer",
  "wrong",
  "refusal",
  "refused",
  "fail",
  "failed",
  "no",
  "false",
];

/** A verdict value read by the rule, or why it cannot be read. */
export function readVerdict(v: unknown, rule: AcceptRule): Verdict | { error: string } {
  if (typeof v === "boolean") return v ? "accept" : "reject";
  if (typeof v === "number") return Number.isFinite(v) ? (v >= rule.scoreAt ? "accept" : "reject") : { error: "not a finite number" };
  if (typeof v !== "string") return { error: "needs a word, a boolean or a number" };
  const word = v.trim().toLowerCase();
  if (rule.labels) return rule.labels.some((l) => l.toLowerCase() === word) ? "accept" : "reject";
  if (DEFAULT_ACCEPT_WORDS.includes(word)) return "accept";
  if (DEFAULT_REJECT_WORDS.includes(word)) return "reject";
  return {
    error: `'${v}' is not a known verdict (accept: ${DEFAULT_ACCEPT_WORDS.join(", ")}; reject: ${DEFAULT_REJECT_WORDS.join(", ")}); name the accepting ones with --accept-label`,
  };
}

/**
 * A FinanceBench results line as a native one: `financebench_id` "financebench_id_00499" is
 * task "fb-00499" (the id scripts/envs/financebench.ts gives its tasks), `model_answer` the
 * answer, `label` the verdict ("Correct Answer" accepts; "Incorrect Answer" and "Refusal"
 * reject), `model_name`_`eval_mode` the group ("gpt-4_oracle").
 */
export function fromFinanceBench(o: Record<string, unknown>): Record<string, unknown> {
  const id = typeof o.financebench_id === "string" ? o.financebench_id : undefined;
  return {
    ...(id !== undefined ? { task: `fb-${id.replace(/^financebench_id_/, "")}` } : {}),
    ...(o.model_answer !== undefined ? { answer: o.model_answer } : {}),
    ...(o.label !== undefined ? { verdict: o.label } : {}),
    ...(typeof o.model_name === "string" ? { group: `${o.model_name}${typeof o.eval_mode === "string" ? `_${o.eval_mode}` : ""}` } : {}),
  };
}

/** The FinanceBench field a native field came from, so an error names what the file holds. */
const FINANCEBENCH_FIELD: Record<string, string> = { task: "financebench_id", answer: "model_answer", verdict: "label" };

function isFinanceBench(o: Record<string, unknown>): boolean {
  return "financebench_id" in o && ("model_answer" in o || "label" in o);
}

function checkLine(raw: unknown, line: number, file: string, rule: AcceptRule): CalibrationLabel | LabelProblem[] {
  const problem = (field: string, message: string): LabelProblem => ({ file, line, field, message });
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return [problem("(line)", "needs a JSON object")];
  const fb = isFinanceBench(raw as Record<string, unknown>);
  const o = fb ? fromFinanceBench(raw as Record<string, unknown>) : raw;
  const name = (f: string) => (fb ? (FINANCEBENCH_FIELD[f] ?? f) : f);
  const parsed = LabelLine.safeParse(o);
  if (!parsed.success)
    return parsed.error.issues.map((i) => {
      const keys = i.code === "unrecognized_keys" ? i.keys.join(", ") : "";
      return problem(keys || name(i.path.map(String).join(".")) || "(line)", keys ? "unknown field" : i.message);
    });
  const d = parsed.data;
  const problems: LabelProblem[] = [];
  if ((d.answer === undefined) === (d.trajectory === undefined))
    problems.push(problem("answer", "give an answer or a trajectory (one of them)"));
  const verdict = readVerdict(d.verdict, rule);
  if (typeof verdict !== "string") problems.push(problem(name("verdict"), verdict.error));
  const fields: Record<string, Verdict> = {};
  for (const [f, v] of Object.entries(d.fields ?? {})) {
    const fv = readVerdict(v, rule);
    if (typeof fv === "string") fields[f] = fv;
    else problems.push(problem(`fields.${f}`, fv.error));
  }
  if (problems.length > 0 || typeof verdict !== "string") return problems;
  return {
    line,
    task: d.task,
    ...(d.answer !== undefined ? { answer: d.answer } : {}),
    ...(d.final_answer !== undefined ? { finalAnswer: d.final_answer } : {}),
    ...(d.trajectory !== undefined ? { trajectory: path.resolve(path.dirname(file), d.trajectory) } : {}),
    verdict,
    fields,
    ...(d.group !== undefined ? { group: d.group } : {}),
  };
}

export interface ReadLabels {
  labels: CalibrationLabel[];
  problems: LabelProblem[];
  /** Non-blank lines read. */
  lines: number;
}

/** Every label of a file; a bad line is a problem naming its line and field, and the others are still read. */
export function readLabels(file: string, rule: AcceptRule): ReadLabels {
  const text = readFileSync(file, "utf8");
  const labels: CalibrationLabel[] = [];
  const problems: LabelProblem[] = [];
  let lines = 0;
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    lines++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      problems.push({ file, line: i + 1, field: "(line)", message: `not JSON: ${(e as Error).message}` });
      return;
    }
    const r = checkLine(value, i + 1, file, rule);
    if (Array.isArray(r)) problems.push(...r);
    else labels.push(r);
  });
  return { labels, problems, lines };
}

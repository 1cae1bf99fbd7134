// The agreement of the shipped figure grading with labelled answers (FinanceBench's form).
import { finalSentence } from "../../src/core/calibrate/final-sentence";
import "../../src/core/reward/comparators/basic";
import "../../src/core/reward/comparators/document";
import { findComparator } from "../../src/core/reward/comparators/registry";
import { FieldSpec } from "../../src/core/schema/verifier";
import { type FinanceQuestion, goldAnswer, isNumericAnswer, questionUnit } from "../envs/financebench-tasks";

export interface LabelledAnswer {
  financebench_id: string;
  question: string;
  gold_answer: unknown;
  model_answer: string;
  label: string;
}

export interface Confusion {
  rightAccepted: number;
  rightRejected: number;
  wrongAccepted: number;
  wrongRejected: number;
  refusalAccepted: number;
  refusalRejected: number;
}

export interface Disagreement {
  mode: string;
  id: string;
  label: string;
  gold: string;
  text: string;
  reason: string;
}

/**
 * The gold as FinanceBench writes it. The labels file holds bare-figure golds as JSON numbers,
 * which lost their marks: "30.8%" is 0.308 there and "$11588.00" is 11588 (checked against
 * questions.jsonl, which keeps the text). A number whose question asks for a percentage is
 * that fraction; the question's unit words supply the rest as they do for the shipped tasks.
 */
export function originalGold(row: LabelledAnswer): string {
  if (typeof row.gold_answer !== "number") return String(row.gold_answer);
  if (questionUnit(row.question).percent) return `${Number((row.gold_answer * 100).toPrecision(12))}%`;
  return String(row.gold_answer);
}

const empty = (): Confusion => ({
  rightAccepted: 0,
  rightRejected: 0,
  wrongAccepted: 0,
  wrongRejected: 0,
  refusalAccepted: 0,
  refusalRejected: 0,
});

/** Grades every labelled answer with a bare-figure gold, on its final sentence and on the whole reply. */
export async function agreement(rows: readonly LabelledAnswer[]) {
  const auto = findComparator("auto");
  if (!auto) throw new Error("the auto comparator is not registered");
  const confusion: Record<string, Confusion> = { "final sentence": empty(), "whole reply": empty() };
  const disagreements: Disagreement[] = [];
  for (const row of rows) {
    const raw = originalGold(row);
    if (!isNumericAnswer(raw)) continue;
    const q = { question: row.question, answer: raw } as FinanceQuestion;
    const gold = goldAnswer(q);
    const task = { id: row.financebench_id, prompt: row.question, target: { answer: gold }, source: { file: "", line: 1, index: 0 } };
    for (const [mode, text] of [
      ["final sentence", finalSentence(row.model_answer)],
      ["whole reply", row.model_answer],
    ] as const) {
      const r = await auto(text, gold, FieldSpec.parse({ comparator: "auto" }), {
        field: "answer",
        answer: { answer: text },
        task,
        events: [],
        signal: new AbortController().signal,
        timeoutMs: 1000,
      } as never);
      const accepted = r.passed ?? r.score >= 1;
      const c = confusion[mode]!;
      const right = row.label === "Correct Answer";
      if (right) accepted ? c.rightAccepted++ : c.rightRejected++;
      else if (row.label === "Refusal") accepted ? c.refusalAccepted++ : c.refusalRejected++;
      else accepted ? c.wrongAccepted++ : c.wrongRejected++;
      if (accepted !== right) disagreements.push({ mode, id: row.financebench_id, label: row.label, gold, text, reason: r.reason ?? "" });
    }
  }
  return { confusion, disagreements };
}

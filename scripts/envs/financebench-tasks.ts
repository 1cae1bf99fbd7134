// The FinanceBench question → task mapping, kept apart from the build so tests can use it.
import { inferComparator } from "../../src/core/reward/comparators/auto";

export interface FinanceQuestion {
  financebench_id: string;
  doc_name: string;
  question: string;
  answer: string;
  question_type: string;
  evidence: Array<{ doc_name: string; page: number; text: string }>;
}

/** One line of questions.jsonl, checked; `line` names it in errors. */
export function financeQuestion(raw: unknown, line: number): FinanceQuestion {
  const o = raw as Record<string, unknown>;
  const need = (k: string) => {
    if (typeof o?.[k] !== "string") throw new Error(`questions.jsonl line ${line}: '${k}' is missing or not text`);
    return o[k] as string;
  };
  const evidence = Array.isArray(o.evidence) ? o.evidence : [];
  return {
    financebench_id: need("financebench_id"),
    doc_name: need("doc_name"),
    question: need("question"),
    answer: need("answer"),
    question_type: need("question_type"),
    evidence: evidence.map((e: Record<string, unknown>, i: number) => {
      if (typeof e.evidence_page_num !== "number") throw new Error(`questions.jsonl line ${line}: evidence[${i}].evidence_page_num is missing`);
      // The dataset's page numbers are zero-indexed.
      return { doc_name: String(e.doc_name ?? o.doc_name), page: e.evidence_page_num, text: String(e.evidence_text ?? "") };
    }),
  };
}

/** A bare figure ("$11588.00", "30.8%", "-3.7", "93.86"): graded by comparing numbers, not by a judge. */
export function isNumericAnswer(answer: string): boolean {
  return /^\s*[-−(]?\s*\$?\s*[\d,]*\.?\d+\s*\)?\s*%?\s*$/.test(answer) && inferComparator(answer) !== "text";
}

/**
 * The gold answer as graded: a bare money figure of a question that asks "in USD millions"
 * gets that scale written out, so "$11,588 million" and "$11.588 billion" match it and
 * "$11,588 thousand" does not.
 */
export function goldAnswer(q: FinanceQuestion): string {
  const inMillions = /USD\s+millions|in\s+millions/i.test(q.question);
  return inMillions && isNumericAnswer(q.answer) && inferComparator(q.answer) === "money" ? `${q.answer} million` : q.answer;
}

export function toTask(q: FinanceQuestion, evidence: Array<{ document: string; page: number }>, cite: boolean) {
  const numeric = isNumericAnswer(q.answer);
  const gold = goldAnswer(q);
  const grading = numeric
    ? { comparator: inferComparator(gold), ...(cite ? { cite: true } : {}) }
    : {
        comparator: "judge" as const,
        rubric: [
          `The answer reaches the same conclusion as the reference answer: ${q.answer}`,
          "Every figure the answer states agrees with the reference answer, allowing for rounding",
        ],
      };
  return {
    id: `fb-${q.financebench_id.replace(/^financebench_id_/, "")}`,
    prompt: `${q.question}\n\nThe filing is ${q.doc_name}.txt.`,
    target: { answer: gold, grading: { answer: grading }, evidence },
    solution: { answer: { answer: gold, citations: evidence } },
    metadata: { financebench_id: q.financebench_id, company_filing: q.doc_name, question_type: q.question_type },
  };
}

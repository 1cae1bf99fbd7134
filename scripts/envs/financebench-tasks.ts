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
      if (typeof e.evidence_page_num !== "number")
        throw new Error(`questions.jsonl line ${line}: evidence[${i}].evidence_page_num is missing`);
      // The dataset's page numbers are zero-indexed.
      return { doc_name: String(e.doc_name ?? o.doc_name), page: e.evidence_page_num, text: String(e.evidence_text ?? "") };
    }),
  };
}

/** A bare figure ("$11588.00", "30.8%", "-3.7", "93.86"): graded by comparing numbers, not by a judge. */
export function isNumericAnswer(answer: string): boolean {
  return /^\s*[-−(]?\s*\$?\s*[\d,]*\.?\d+\s*\)?\s*%?\s*$/.test(answer) && inferComparator(answer) !== "text";
}

/** The unit a question asks its answer in: "in USD billions", "(in millions)", "in units of percents". */
export interface QuestionUnit {
  scale?: "thousand" | "million" | "billion";
  /** The question names a currency for the answer ("in USD millions", "in USD"). */
  currency: boolean;
  percent: boolean;
}

const SCALE_WORD: Record<string, QuestionUnit["scale"]> = {
  thousand: "thousand",
  k: "thousand",
  million: "million",
  mn: "million",
  mm: "million",
  billion: "billion",
  bn: "billion",
};
const CURRENCY_WORD = String.raw`(?:USD|US\$|\$|U\.S\.\s*dollars?|dollars?)`;
const SCALE = "(thousands?|millions?|billions?|mn|mm|bn)";

/**
 * Reads the answer's unit from the question's wording. A scale counts only where it names
 * the answer's unit ("in USD millions", "USD billions", "in millions of dollars"), never
 * after a figure ("the $2 billion acquisition").
 */
export function questionUnit(question: string): QuestionUnit {
  const forms = [
    new RegExp(String.raw`\bin\s+(?:units\s+of\s+)?(?:${CURRENCY_WORD}\s*)?${SCALE}\b(\s+of\s+${CURRENCY_WORD})?(\s+of\s+shares)?`, "i"),
    new RegExp(String.raw`(?:\bUSD|\bUS\$|\$)\s*${SCALE}\b`, "i"),
  ];
  let scale: QuestionUnit["scale"];
  let currency = new RegExp(String.raw`\b(?:in|answer in)\s+${CURRENCY_WORD}(?![\w$])`, "i").test(question);
  for (const re of forms) {
    const m = re.exec(question);
    if (!m?.[1]) continue;
    if (m[3]) break; // "in millions of shares": a count, not money.
    const word = m[1].toLowerCase().replace(/s$/, "");
    scale = SCALE_WORD[word] ?? SCALE_WORD[m[1].toLowerCase()];
    if (new RegExp(CURRENCY_WORD, "i").test(m[0])) currency = true;
    break;
  }
  const percent = /\bin\s+(?:units\s+of\s+)?percents?(?:age)?\b|\bas\s+an?\s+(?:%|percent(?:age)?)|\bpercentage\s+points?\b/i.test(
    question,
  );
  return { ...(scale ? { scale } : {}), currency, percent };
}

const BARE_FIGURE = /^\s*([-−]?)\s*(\(?)\s*(\$?)\s*([\d,]*\.?\d+)\s*(\)?)\s*(%?)\s*$/;

/** The scale a filing page prints its table in ("(in millions, except per share data)"), when it prints `figure` too. */
function pageScale(page: string, figure: string): QuestionUnit["scale"] {
  const m =
    /\(?\b(?:in|amounts in|dollars in)\s+(?:US\$\s*|\$\s*)?(thousands|millions|billions)\b/i.exec(page) ??
    /\((thousands|millions|billions)\)/i.exec(page);
  if (!m?.[1]) return undefined;
  const n = Number(figure.replace(/,/g, ""));
  const printed = (page.match(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g) ?? []).some((x) => Number(x.replace(/,/g, "")) === n);
  return printed ? SCALE_WORD[m[1].toLowerCase().replace(/s$/, "")] : undefined;
}

/**
 * The gold answer as graded, with the unit the question asks for written into it, so the
 * comparator knows it: "$8.70" asked "in USD billions" becomes "$8.70 billion" (then
 * "8700000000" matches it and "$8.7 million" does not); "77.78" asked "in USD million"
 * becomes "$77.78 million"; "24.26" asked "in units of percents" becomes "24.26%". A money
 * figure whose question names no scale takes the scale of the evidence page's table when
 * that page prints it. A figure already written with a scale or a % keeps it.
 */
export function goldAnswer(q: FinanceQuestion, evidencePages: readonly string[] = []): string {
  const m = BARE_FIGURE.exec(q.answer);
  if (!m || !isNumericAnswer(q.answer)) return q.answer;
  const [, minus = "", open = "", dollar = "", digits = "", close = "", pct = ""] = m;
  if (pct) return q.answer;
  const unit = questionUnit(q.question);
  const sign = minus || (open && close) ? "-" : "";
  if (unit.percent && !dollar && !unit.scale) return `${sign}${digits}%`;
  const money = Boolean(dollar) || unit.currency;
  let scale = unit.scale;
  if (!scale && dollar) scale = evidencePages.map((p) => pageScale(p, digits)).find(Boolean);
  if (!money && !scale) return q.answer;
  return `${sign}${money ? "$" : ""}${digits}${scale ? ` ${scale}` : ""}`;
}

export function toTask(
  q: FinanceQuestion,
  evidence: Array<{ document: string; page: number }>,
  cite: boolean,
  evidencePages: readonly string[] = [],
) {
  const numeric = isNumericAnswer(q.answer);
  const gold = goldAnswer(q, evidencePages);
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

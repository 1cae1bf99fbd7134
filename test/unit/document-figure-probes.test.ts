// The figure comparator against probes built from every numeric gold the shipped
// FinanceBench tasks hold, plus hand-written golds for each way a figure has been misjudged:
// every wrong answer (±1 %, ±10 %, the sign flipped, ×1000 / ÷1000, the unit word swapped,
// a percentage for a ratio and back, another task's figure, a dump of the evidence page)
// must score 0, and every correct reformatting ("$1,577 million" / "$1.577 billion" /
// "1577000000" / "(1,577)" with and without "$" and commas) must score 1.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { FieldComparator } from "../../src/core/reward/comparators/field-result";
import { compareMoney } from "../../src/core/reward/comparators/money";
import { compareNumber } from "../../src/core/reward/comparators/number";
import { comparePercent } from "../../src/core/reward/comparators/percent";
import { parseQuantity } from "../../src/core/reward/comparators/quantity";
import { type FinanceQuestion, goldAnswer, questionUnit } from "../../scripts/envs/financebench-tasks";

const envDir = path.join(__dirname, "..", "..", "environments", "document-financebench");
const COMPARATORS: Record<string, FieldComparator> = { money: compareMoney, percent: comparePercent, number: compareNumber };

interface Gold {
  id: string;
  gold: string;
  comparator: string;
  /** Text of the evidence pages, for the "another figure on the page" probes. */
  pages?: string[];
  prompt?: string;
}

function shippedGolds(): Gold[] {
  const docs = path.join(envDir, "documents");
  const pagesOf = new Map<string, string[]>();
  const page = (doc: string, n: number) => {
    if (!pagesOf.has(doc)) pagesOf.set(doc, readFileSync(path.join(docs, doc), "utf8").split("\f"));
    return pagesOf.get(doc)?.[n - 1] ?? "";
  };
  return readFileSync(path.join(envDir, "tasks.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          id: string;
          prompt: string;
          target: { answer: string; evidence: Array<{ document: string; page: number }>; grading: { answer: { comparator: string } } };
        },
    )
    .filter((t) => t.target.grading.answer.comparator in COMPARATORS)
    .map((t) => ({
      id: t.id,
      gold: t.target.answer,
      comparator: t.target.grading.answer.comparator,
      pages: t.target.evidence.map((e) => page(e.document, e.page)),
      prompt: t.prompt,
    }));
}

/** Golds of the forms the held-out filings use, each category of misjudgement represented. */
const EXTRA: Gold[] = [
  { id: "negative-with-unit", gold: "-$1,577 million", comparator: "money" },
  { id: "ratio", gold: "24.26", comparator: "number" },
  { id: "small-ratio", gold: "0.01", comparator: "number" },
  { id: "billions", gold: "$8.70 billion", comparator: "money" },
  { id: "rounded-gold", gold: "$382.00 million", comparator: "money" },
  { id: "thousands", gold: "$381,603 thousand", comparator: "money" },
  { id: "per-share", gold: "$2.48", comparator: "money" },
  { id: "negative-percent", gold: "-12.5%", comparator: "percent" },
  { id: "count", gold: "982", comparator: "number" },
];

const SCALE_NAMES: Record<number, string> = { 1e3: "thousand", 1e6: "million", 1e9: "billion" };

/** `x` written with thousands separators and up to `decimals` decimals, trailing zeros dropped. */
function fmt(x: number, decimals = 6, commas = true): string {
  const s = Math.abs(x).toLocaleString("en-US", { maximumFractionDigits: decimals, useGrouping: commas });
  return s;
}

/** A gold's figure, rewritten: value in units of `scale`, the gold's currency and kind, sign as asked. */
function write(
  value: number,
  kind: string,
  opts: { scale?: number; dollar?: boolean; commas?: boolean; parens?: boolean; decimals?: number } = {},
): string {
  const scale = opts.scale ?? 1;
  const body = fmt(value / scale, opts.decimals ?? 6, opts.commas ?? true);
  const unit = kind === "percent" ? "%" : scale !== 1 ? ` ${SCALE_NAMES[scale]}` : "";
  const cur = kind === "money" && opts.dollar !== false ? "$" : "";
  if (value < 0 && opts.parens) return `(${cur}${body}${unit})`;
  return `${value < 0 ? "-" : ""}${cur}${body}${unit}`;
}

function probes(g: Gold, all: Gold[]): { right: string[]; wrong: string[] } {
  const q = parseQuantity(g.gold);
  assert.ok(q, `${g.id}: gold ${g.gold} is a figure`);
  const kind = q.kind;
  const v = q.value;
  const scale = q.scale;
  const right = new Set<string>();
  const wrong = new Set<string>();
  // Correct reformattings.
  right.add(g.gold);
  for (const commas of [true, false]) {
    right.add(write(v, kind, { scale, commas }));
    if (kind === "money") right.add(write(v, kind, { scale, commas, dollar: false }));
    if (v < 0) right.add(write(v, kind, { scale, commas, parens: true }));
  }
  if (kind !== "percent") {
    right.add(write(v, kind, { commas: false }));
    right.add(write(v, kind, { commas: true }));
    if (kind === "money") right.add(write(v, kind, { dollar: false, commas: false }));
    for (const s of [1e3, 1e6, 1e9]) {
      // Another scale word, as long as the figure keeps all its digits.
      if (scale !== 1 && Math.abs(v) / s >= 1 && Math.abs(v) / s < 1e6) right.add(write(v, kind, { scale: s }));
    }
    if (scale !== 1) right.add(fmt(v / scale).replace(/^/, v < 0 ? "-" : "")); // the table convention: "11,588"
    if (kind === "money" && scale !== 1) right.add(`USD ${fmt(v / scale)}${` ${SCALE_NAMES[scale]}`}`.replace(/^/, v < 0 ? "-" : ""));
  } else {
    right.add(`${v < 0 ? "-" : ""}${fmt(v)} percent`);
    right.add(`${v < 0 ? "-" : ""}${fmt(v / 100, 8, false)}`);
  }
  // Words around the figure, trailing zeros, spacing.
  const sign = v < 0 ? "-" : "";
  right.add(`approximately ${g.gold}`);
  right.add(` ${g.gold} `);
  right.add(`The answer is ${g.gold}.`);
  if (kind === "plain") for (const suffix of ["x", " times", ".0"]) right.add(`${sign}${fmt(v)}${suffix}`);
  if (kind === "plain" && scale === 1) right.add(`${sign}${fmt(Number((Math.abs(v) * 100).toPrecision(12)))}%`); // a ratio as a percentage
  if (kind === "percent") for (const form of [" %", "0%", " pct"]) right.add(`${sign}${fmt(v)}${form}`);
  if (kind === "money" && scale !== 1) {
    const word = SCALE_NAMES[scale]!;
    const short = scale === 1e6 ? "mn" : scale === 1e9 ? "bn" : "k";
    right.add(`${sign}$${fmt(v / scale)}${short}`);
    right.add(`${sign}US$${fmt(v / scale)} ${word}`);
    right.add(`${sign}$${fmt(v / scale)}.0 ${word}`.replace(/(\.\d+)\.0 /, "$10 "));
    right.add(`${sign}$ ${fmt(v / scale)} ${word}s`);
  }
  // Wrong answers.
  const goldDecimals = /\.(\d+)/.exec(g.gold)?.[1]?.length ?? 0;
  const perturbed = (x: number) => write(x, kind, { scale, decimals: goldDecimals + 2 });
  for (const f of [1.01, 0.99, 1.1, 0.9]) wrong.add(perturbed(v * f));
  wrong.add(write(-v, kind, { scale }));
  if (v > 0) wrong.add(write(-v, kind, { scale, parens: true }));
  if (v < 0) wrong.add(write(-v, kind, { scale }).replace(/^-/, ""));
  wrong.add(write(v * 1000, kind, { scale }));
  wrong.add(write(v / 1000, kind, { scale, decimals: 9 }));
  if (kind === "percent") {
    wrong.add(fmt(v).replace(/^/, v < 0 ? "-" : "")); // "30.8" read as a ratio is 3,080 %
    wrong.add(`$${fmt(v)}`);
    wrong.add(`${v < 0 ? "-" : ""}${fmt(v)} million`);
  } else {
    wrong.add(`${v < 0 ? "-" : ""}${fmt(q.mantissa < 0 ? -q.mantissa : q.mantissa)}%`); // the same digits as a percentage
    for (const s of [1e3, 1e6, 1e9])
      if (s !== scale) wrong.add(`${v < 0 ? "-" : ""}${kind === "money" ? "$" : ""}${fmt(Math.abs(q.mantissa))} ${SCALE_NAMES[s]}`);
    if (kind === "plain") wrong.add(`$${fmt(Math.abs(v))}`.replace(/^/, v < 0 ? "-" : ""));
  }
  // Another task's figure, of the same unit, more than 1 % away.
  for (const o of all) {
    const oq = parseQuantity(o.gold);
    if (o !== g && oq && oq.kind === kind && Math.abs(oq.value - v) > 0.01 * Math.abs(v)) wrong.add(o.gold);
  }
  // Every figure of the evidence page at once, and the question itself.
  for (const p of g.pages ?? []) if (p.trim()) wrong.add(p.slice(0, 900));
  if (g.prompt) wrong.add(g.prompt);
  wrong.add("");
  for (const r of right) wrong.delete(r);
  return { right: [...right], wrong: [...wrong] };
}

describe("figure comparator probes", () => {
  const golds = [...shippedGolds(), ...EXTRA];
  test("the shipped environment has numeric golds to probe", () => {
    assert.ok(golds.length >= 20, `${golds.length} golds`);
  });
  let rightCount = 0;
  let wrongCount = 0;
  for (const g of golds) {
    const cmp = COMPARATORS[g.comparator]!;
    const { right, wrong } = probes(g, golds);
    rightCount += right.length;
    wrongCount += wrong.length;
    test(`${g.id} (${g.gold}): ${right.length} correct reformattings score 1`, () => {
      const rejected = right.filter((a) => !cmp(a, g.gold).passed).map((a) => `${JSON.stringify(a)}: ${cmp(a, g.gold).reason}`);
      assert.deepEqual(rejected, []);
    });
    test(`${g.id} (${g.gold}): ${wrong.length} wrong answers score 0`, () => {
      const accepted = wrong
        .filter((a) => cmp(a, g.gold).score !== 0)
        .map((a) => `${JSON.stringify(a.slice(0, 80))}: ${cmp(a, g.gold).reason}`);
      assert.deepEqual(accepted, []);
    });
  }
  test("the table is large enough to mean something", () => {
    assert.ok(rightCount >= 250 && wrongCount >= 500, `${rightCount} right, ${wrongCount} wrong`);
  });
});

describe("the categories that were misjudged", () => {
  const cases: Array<[string, string, string, boolean]> = [
    // [comparator, gold, answer, accepted]
    ["money", "-$1,577 million", "($1,577 million)", true],
    ["money", "$1,577 million", "($1,577 million)", false],
    ["money", "$1,577 million", "$(1,577) million", false],
    ["money", "-$1,577 million", "negative $1,577 million", true],
    ["number", "24.26", "24.26 thousand", false],
    ["number", "24.26", "24.26 million", false],
    ["number", "24.26", "24.26%", false],
    ["number", "0.01", "0.01%", false],
    ["number", "24.26", "24.26x", true],
    ["number", "0.66", "66%", true],
    ["money", "$1,577 million", "1.577e9", true],
    ["money", "$1,577 million", "1.577e6", false],
    ["money", "-$1,577 million", "$-1,577 million", true],
    ["percent", "-12.5%", "(12.5)%", true],
    ["percent", "-12.5%", "(12.5%)", true],
    ["money", "$1,577 million", "1.577 billion dollars", true],
    ["number", "0.66", "0.66%", false],
    ["money", "$8.70 billion", "$8.7 million", false],
    ["money", "$8.70 billion", "8700000000", true],
    ["money", "$8.70 billion", "$8.7 billion", true],
    ["money", "$8.70 billion", "8.7", true],
    // A gold rounded in the source data: half a unit of its last significant digit.
    ["money", "$382.00 million", "$381,603 thousand", true],
    ["money", "$382.00 million", "$381.6 million", true],
    ["money", "$382.00 million", "$385.82 million", false],
    ["money", "$382.00 million", "$378.2 million", false],
    ["money", "$382.00 million", "$381.4 million", false],
    ["percent", "30.8%", "30.8", false],
    ["percent", "30.8%", "0.308", true],
    ["money", "$11588.00 million", "€11,588 million", false],
    ["money", "$11588.00 million", "$11,588 million or $10,073 million or $3,033 million or $2,371 million or $1,500 million", false],
    ["money", "$11588.00 million", "Net income attributable to shareholders was $11,588 million in FY2019.", true],
    // A currency written after the figure, or another currency's mark, is a currency all the same.
    ["money", "$1,577 million", "1,577 million EUR", false],
    ["money", "$1,577 million", "1,577 million euros", false],
    ["money", "$1,577 million", "¥1,577 million", false],
    ["money", "$1,577 million", "JPY 1,577 million", false],
    ["money", "$1,577 million", "1,577 million USD", true],
    ["money", "$1,577 million", "1,577 million US dollars", true],
    ["number", "24.26", "24.26 dollars", false],
    // A scale letter glued to the digits is a scale: "1,577k" is 1.577 million, not 1,577 in the gold's millions.
    ["money", "$1,577 million", "1,577k", false],
    ["money", "$1,577 million", "1,577b", false],
    ["money", "$1,577 million", "1,577m", true],
    ["money", "$1,577 million", "1.577b", true],
    ["money", "$1,577 million", "Rule 10b-5 aside, $1,577 million", true],
    // A range or a choice of figures is a hedge, whichever figure comes first.
    ["money", "$1,577 million", "$1,577 million or $1,600 million", false],
    ["money", "$1,577 million", "either $1,577 million or $2,000 million", false],
    ["money", "$1,577 million", "$1,577-$1,600 million", false],
    ["money", "$1,577 million", "1,577 to 1,600", false],
    ["money", "$1,577 million", "$1,577 million, $1,300 million", false],
    ["percent", "12.5%", "12.5% to 13%", false],
    ["percent", "12.5%", "12.5%–13%", false],
    ["percent", "12.5%", "12.5%, 13.5%", false],
    ["percent", "12.5%", "between 12.5% and 15%", false],
    ["money", "$1,577 million", "$1,577 million, or $1.577 billion", true],
    ["money", "$1,577 million", "$1,577 million, up from $1,300 million in 2018", true],
    ["money", "$1,577 million", "$1,577 million in 2019, 2018: $1,300 million", true],
    // In a sentence the figure of the gold's unit is graded, wherever figures of other units stand.
    ["money", "$1,577 million", "Revenue grew 5.4% to $1,577 million", true],
    ["percent", "5.4%", "Revenue grew from $1,496 million to $1,577 million, up 5.4%", true],
    ["number", "1.73", "The current ratio is 1.73 ($2,000 million / $1,156 million)", true],
    ["money", "$1,577 million", "Revenue grew 5.4% to $1,600 million", false],
    ["percent", "5.4%", "$1,577 million, a 6.4% increase", false],
  ];
  for (const [kind, gold, answer, ok] of cases) {
    test(`${kind} ${gold} ${ok ? "accepts" : "rejects"} ${answer.slice(0, 60)}`, () => {
      const r = COMPARATORS[kind]!(answer, gold);
      assert.equal(r.passed, ok, r.reason);
    });
  }
  test("rounding: none takes only the stated tolerance", () => {
    assert.equal(compareMoney("$381,603 thousand", "$382.00 million", { rounding: "none" }).passed, false);
    assert.equal(compareMoney("$381,603 thousand", "$382.00 million", { rounding: "none", rel_tol: 0.002 }).passed, true);
  });
});

describe("the task builder writes the question's unit into the gold", () => {
  const q = (question: string, answer: string): FinanceQuestion => ({
    financebench_id: "x",
    doc_name: "X",
    question,
    answer,
    question_type: "",
    evidence: [],
  });
  const cases: Array<[string, string, string]> = [
    ["What is FY2019 capital expenditure in USD billions?", "$8.70", "$8.70 billion"],
    ["What is the FY2018 revenue (in USD millions)?", "$1577.00", "$1577.00 million"],
    ["Answer in USD thousands.", "$381603.00", "$381603.00 thousand"],
    ["How much does Pfizer expect to pay in USD million?", "77.78", "$77.78 million"],
    ["What is the net margin? Answer in units of percents.", "24.26", "24.26%"],
    ["What is the working capital ratio?", "1.73", "1.73"],
    ["What is the change in cash (in USD millions)?", "-3.7", "-$3.7 million"],
    ["After the $2 billion acquisition, what was diluted EPS in USD?", "2.48", "$2.48"],
    ["What is the FY2019 cash conversion cycle?", "-3.7", "-3.7"],
    ["What was revenue?", "30.8%", "30.8%"],
  ];
  for (const [question, answer, gold] of cases) {
    test(`${JSON.stringify(answer)} for "${question}" → ${gold}`, () => assert.equal(goldAnswer(q(question, answer)), gold));
  }
  test("a money figure whose question names no scale takes the evidence table's scale when the page prints it", () => {
    const page = "CONSOLIDATED BALANCE SHEETS\n(In millions, except per share data)\nTotal assets\t$\t59,268\t$\t55,556";
    assert.equal(goldAnswer(q("What were total assets?", "$59268.00"), [page]), "$59268.00 million");
    assert.equal(goldAnswer(q("What were total assets?", "$59269.00"), [page]), "$59269.00");
  });
  test("a count in millions of shares is not money", () => {
    assert.deepEqual(questionUnit("How many shares were outstanding (in millions of shares)?"), { currency: false, percent: false });
  });
});

import { compareMoney } from "../reward/comparators/money";
import { compareNumber } from "../reward/comparators/number";
import { comparePercent } from "../reward/comparators/percent";
import type { FieldComparator } from "../reward/comparators/field-result";

/**
 * The rules by which the figure comparators read an answer, each with answers that pass and
 * answers that fail; the verdicts in docs/reference.md are computed from the comparators, so a
 * rule that stops holding fails the generator rather than going stale.
 */
interface ReadingRule {
  rule: string;
  comparator: "number" | "money" | "percent";
  /** [answer, gold, passes] */
  examples: Array<[string, string, boolean]>;
}

const RULES: ReadingRule[] = [
  {
    rule: "The graded figure is the reply's result: the sentence that concludes (therefore, so, thus, in summary, the answer is…), else the last that works a figure out with '=', else the first holding a figure of the gold's unit; in it, the figure after the last '=', else the first after is/was/equals/of, else its first.",
    comparator: "money",
    examples: [
      ["$19,815 million − $13,997 million = $5,818 million", "$5,818 million", true],
      ["$19,815 million − $13,997 million = $5,818 million", "$19,815 million", false],
      ["COGS was $32,780 million. This comes from the 10-K, page 45.", "$32,780 million", true],
    ],
  },
  {
    rule: "Names are not figures: digits glued to letters (Q3, FY2019, A380, 10-K), a number after a label word or an '&' name (Item 7, Note 12, S&P 500), and a company glued to a capital M/B/K followed by 's or a capitalised word (3M's, 3M Company).",
    comparator: "money",
    examples: [
      ["3M's capital expenditure was $1,749 million", "$1,749 million", true],
      ["3M's capital expenditure was $1,749 million", "$3 million", false],
    ],
  },
  {
    rule: "Rounding: a figure that rounds to the gold at the gold's precision (within 0.5 % when the gold's last digit is 1 % of it or more); the gold rounded to a figure of three significant digits or more (within 0.5 %); one unit of the gold's last digit off at the gold's precision (within 0.5 %); within 0.1 % when written at another precision. At the gold's precision, any other figure is another figure. `rounding: none` keeps only rel_tol / abs_tol.",
    comparator: "number",
    examples: [
      ["24.25", "24.26", true],
      ["5.43", "5.4", true],
      ["24.2451", "24.26", true],
      ["24.23", "24.26", false],
      ["59,286", "59,268", false],
      ["-0.0153", "-0.02", false],
    ],
  },
  {
    rule: "Zero is zero in any unit: '$0' answers a gold of '0'.",
    comparator: "number",
    examples: [
      ["$0", "0", true],
      ["$5", "0", false],
    ],
  },
  {
    rule: "A long reply is read (up to 20,000 characters), but its answering sentence must state one figure: a range, a choice ('X or Y') or more than three other figures of the gold's unit beside the working of an equation scores 0.",
    comparator: "money",
    examples: [
      [`${"The filing discusses revenue at length. ".repeat(30)}So net income was $11,588 million.`, "$11,588 million", true],
      ["Therefore it is $1,577 million or $1,600 million.", "$1,577 million", false],
    ],
  },
  {
    rule: "A refusal or a hedge on its inputs scores 0 whatever the gold (as an AI…, unable to determine, not enough information, the provided evidence/context does not…), so a question's own rule ('if not outlined, state 0') does not pay for not looking; a reply that says the filing itself shows none is an answer.",
    comparator: "number",
    examples: [
      ["The provided evidence does not outline restructuring costs. Therefore, the quantity is 0.", "0", false],
      ["The income statement does not outline restructuring costs. Therefore, the quantity is 0.", "0", true],
    ],
  },
];

const COMPARATORS: Record<ReadingRule["comparator"], FieldComparator> = {
  number: compareNumber,
  money: compareMoney,
  percent: comparePercent,
};

const code = (s: string) => `\`${JSON.stringify(s.length > 90 ? `${s.slice(0, 40)}…${s.slice(-45)}` : s).replace(/`/g, "'")}\``;

/** The "How a figure answer is read" section; throws when an example's verdict is not the one stated. */
export function readingRulesSection(): string[] {
  const out = [
    "### How a figure answer is read",
    "",
    "`number` (through `auto` and `quantity`), `money` and `percent` read a reply as a reviewer does. Each rule, with answers computed against it:",
    "",
    "| rule | comparator | answer | gold | passed |",
    "|---|---|---|---|---|",
  ];
  for (const r of RULES)
    r.examples.forEach(([answer, gold, passes], i) => {
      const got = COMPARATORS[r.comparator](answer, gold).passed;
      if (got !== passes) throw new Error(`reading rule example ${JSON.stringify(answer)} for ${gold}: expected ${passes}, got ${got}`);
      out.push(
        `| ${i === 0 ? r.rule.replace(/\|/g, "\\|") : ""} | ${r.comparator} | ${code(answer)} | ${code(gold)} | ${got ? "✓" : "✗"} |`,
      );
    });
  out.push("");
  return out;
}

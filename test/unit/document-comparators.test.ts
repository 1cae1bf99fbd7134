import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkCitations } from "../../src/core/reward/comparators/citation";
import { compareDate, parseDate } from "../../src/core/reward/comparators/date";
import { compareEntities } from "../../src/core/reward/comparators/entities";
import { compareMoney } from "../../src/core/reward/comparators/money";
import { compareNumber } from "../../src/core/reward/comparators/number";
import { comparePercent } from "../../src/core/reward/comparators/percent";
import { findQuantities, parseQuantity } from "../../src/core/reward/comparators/quantity";
import { compareText, comparableWords } from "../../src/core/reward/comparators/text-norm";

type Kind = "money" | "percent" | "number";
const cmp = { money: compareMoney, percent: comparePercent, number: compareNumber };

/**
 * Gold answers of FinanceBench questions (financebench_id in the comment) with answers a
 * model might give: equivalent forms must pass, near misses must not. Money golds carry
 * the scale the question asks for ("in USD millions"), as the environment stores them.
 */
const TABLE: Array<{ id: string; kind: Kind; gold: string; answer: string | number; ok: boolean }> = [
  // 00684 AMAZON_2017 — a ratio "93.86"
  { id: "00684", kind: "number", gold: "93.86", answer: "93.86", ok: true },
  { id: "00684", kind: "number", gold: "93.86", answer: 93.86, ok: true },
  { id: "00684", kind: "number", gold: "93.86", answer: "The ratio is 93.9", ok: true },
  { id: "00684", kind: "number", gold: "93.86", answer: "94", ok: false },
  { id: "00684", kind: "number", gold: "93.86", answer: "98.36", ok: false },
  // 04980 AMAZON_2017 — "30.8%"
  { id: "04980", kind: "percent", gold: "30.8%", answer: "30.8%", ok: true },
  { id: "04980", kind: "percent", gold: "30.8%", answer: "30.8 percent", ok: true },
  { id: "04980", kind: "percent", gold: "30.8%", answer: "0.308", ok: true },
  { id: "04980", kind: "percent", gold: "30.8%", answer: "31%", ok: false },
  { id: "04980", kind: "percent", gold: "30.8%", answer: "$30.8", ok: false },
  // 01865 AMAZON_2019 — "$11588.00" (USD millions)
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "$11,588 million", ok: true },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "11588", ok: true },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "$11.588 billion", ok: true },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "$11.6 billion", ok: true },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "$12 billion", ok: false },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "$11,688 million", ok: false },
  { id: "01865", kind: "money", gold: "$11588.00 million", answer: "11.588%", ok: false },
  // 00540 BESTBUY_2019 — "$5409.00"
  { id: "00540", kind: "money", gold: "$5409.00 million", answer: "USD 5,409 million", ok: true },
  { id: "00540", kind: "money", gold: "$5409.00 million", answer: "$5,409", ok: true },
  { id: "00540", kind: "money", gold: "$5409.00 million", answer: "$5,490", ok: false },
  // 03856 BOEING_2018 — "$12645.00"
  { id: "03856", kind: "money", gold: "$12645.00 million", answer: "$12,645mn", ok: true },
  { id: "03856", kind: "money", gold: "$12645.00 million", answer: "$12.645bn", ok: true },
  { id: "03856", kind: "money", gold: "$12645.00 million", answer: "(12,645)", ok: false },
  // 00605 COSTCO_2021 — "$59268.00"
  { id: "00605", kind: "money", gold: "$59268.00 million", answer: "$59,268", ok: true },
  { id: "00605", kind: "money", gold: "$59268.00 million", answer: "$59,286", ok: false },
  // 01319 GENERALMILLS_2019 — "-3.7" (a decline)
  { id: "01319", kind: "number", gold: "-3.7", answer: "(3.7)", ok: true },
  { id: "01319", kind: "number", gold: "-3.7", answer: "−3.7", ok: true },
  { id: "01319", kind: "number", gold: "-3.7", answer: "3.7", ok: false },
  { id: "01319", kind: "number", gold: "-3.7", answer: "-3.8", ok: false },
  // 01346 BLOCK_2016 — "1.73"
  { id: "01346", kind: "number", gold: "1.73", answer: "1.73x", ok: true },
  { id: "01346", kind: "number", gold: "1.73", answer: "1.7", ok: false },
  // 03718 MICROSOFT_2016 — "$32780.00"
  { id: "03718", kind: "money", gold: "$32780.00 million", answer: "$32,780 million", ok: true },
  { id: "03718", kind: "money", gold: "$32780.00 million", answer: "$32.78 billion", ok: true },
  { id: "03718", kind: "money", gold: "$32780.00 million", answer: "$3,278 million", ok: false },
  // 04254 NETFLIX_2015 — "5.4%"
  { id: "04254", kind: "percent", gold: "5.4%", answer: "5.4 %", ok: true },
  { id: "04254", kind: "percent", gold: "5.4%", answer: "0.054", ok: true },
  { id: "04254", kind: "percent", gold: "5.4%", answer: "4.5%", ok: false },
  // 01911 NIKE_2018 — "55.1%"
  { id: "01911", kind: "percent", gold: "55.1%", answer: "55.10%", ok: true },
  { id: "01911", kind: "percent", gold: "55.1%", answer: "51.1%", ok: false },
  // 03282 NIKE_2019 — "$16525.00"
  { id: "03282", kind: "money", gold: "$16525.00 million", answer: "16,525.00", ok: true },
  { id: "03282", kind: "money", gold: "$16525.00 million", answer: "$16,525 thousand", ok: false },
  // 00799 NETFLIX_2017 — "$5466.00"
  { id: "00799", kind: "money", gold: "$5466.00 million", answer: "5,466", ok: true },
  { id: "00799", kind: "money", gold: "$5466.00 million", answer: "$5,46", ok: false },
  // AMCOR_2023Q4 — "AMCOR's Adj. EBITDA was $2,018mn in FY 2023"
  { id: "amcor-ebitda", kind: "money", gold: "$2,018 million", answer: "AMCOR's Adj. EBITDA was $2,018mn in FY 2023", ok: true },
  { id: "amcor-ebitda", kind: "money", gold: "$2,018 million", answer: "$2.018 billion", ok: true },
  { id: "amcor-ebitda", kind: "money", gold: "$2,018 million", answer: "$2,108 million", ok: false },
  // JOHNSON_JOHNSON_2023_8K — "$13.2 billion" cash proceeds; "approximately $20 billion" gain
  { id: "jnj-proceeds", kind: "money", gold: "$13.2 billion", answer: "$13,200 million", ok: true },
  { id: "jnj-proceeds", kind: "money", gold: "$13.2 billion", answer: "13.2bn", ok: true },
  { id: "jnj-proceeds", kind: "money", gold: "$13.2 billion", answer: "$1.32 billion", ok: false },
  { id: "jnj-gain", kind: "money", gold: "$20 billion", answer: "approximately $20 billion", ok: true },
  // MICROSOFT_2023 — "decreased its debt by $2.5bn"
  { id: "msft-debt", kind: "money", gold: "-$2.5 billion", answer: "-$2,500 million", ok: true },
  { id: "msft-debt", kind: "money", gold: "-$2.5 billion", answer: "$2.5 billion", ok: false },
  // 00070 NIKE_2021 — "3.46"; Pfizer "77.78"
  { id: "nike-2021", kind: "number", gold: "3.46", answer: "3.46", ok: true },
  { id: "pfizer", kind: "number", gold: "77.78", answer: "77.8", ok: true },
  { id: "pfizer", kind: "number", gold: "77.78", answer: "78", ok: false },
  // BESTBUY_2017 — "2.8%"
  { id: "bestbuy-2017", kind: "percent", gold: "2.8%", answer: "2.80 percent", ok: true },
  { id: "bestbuy-2017", kind: "percent", gold: "2.8%", answer: "28%", ok: false },
];

describe("FinanceBench answer table", () => {
  test("has at least 40 pairs, both accepted and rejected", () => {
    assert.ok(TABLE.length >= 40, `${TABLE.length} pairs`);
    assert.ok(TABLE.filter((r) => r.ok).length >= 20);
    assert.ok(TABLE.filter((r) => !r.ok).length >= 15);
  });
  for (const row of TABLE) {
    test(`${row.id}: ${JSON.stringify(row.answer)} ${row.ok ? "matches" : "does not match"} ${row.gold} (${row.kind})`, () => {
      const r = cmp[row.kind](row.answer, row.gold);
      assert.equal(r.passed, row.ok, r.reason);
      assert.equal(r.score, row.ok ? 1 : 0);
      assert.ok(r.reason.length > 0);
    });
  }
});

describe("quantity reader", () => {
  test("reads sign, scale and unit conventions", () => {
    const q = (s: string) => parseQuantity(s);
    assert.equal(q("(370)")?.value, -370);
    assert.equal(q("1.2 billion")?.value, 1.2e9);
    assert.equal(q("$1,577 million")?.value, 1.577e9);
    assert.equal(q("$1,577 million")?.kind, "money");
    assert.equal(q("30.8%")?.kind, "percent");
    assert.equal(q("FY2022 ratio 1.73")?.value, 1.73);
  });
  test("skips labels glued to letters and reads table cells split by a currency sign", () => {
    const found = findQuantities("Form 10-K, Q2 FY2022: Subscription\t$\t16,388 $\t14,573 Interest expense\t(112)").map((x) => x.value);
    assert.deepEqual(found, [16388, 14573, -112]);
  });
  test("thousands grouped by spaces (SI, European styles) are one figure in an answer, never in a document's table text", () => {
    const q = (s: string) => parseQuantity(s)?.value;
    assert.equal(q("1 577 million"), 1.577e9);
    assert.equal(q("$1 577 million"), 1.577e9);
    assert.equal(q("12\u202f345.6"), 12345.6);
    assert.equal(q("1\u00a0234\u00a0567"), 1234567);
    // Groups of three only, the same space between each: anything else stays separate figures.
    assert.deepEqual(
      findQuantities("1 5770 and 12 34 and 1 234\u00a0567").map((x) => x.value),
      [1, 5770, 12, 34, 1234, 567],
    );
    assert.deepEqual(
      findQuantities("Net sales 177 866 280", { table: true }).map((x) => x.value),
      [177, 866, 280],
    );
    // Read whole, a wrong figure is refused and a right one accepted (it read as 577 million, and $1).
    assert.equal(compareMoney("1 577 million", "$577 million").passed, false);
    assert.equal(compareMoney("$1 577 million", "$1,577 million").passed, true);
    assert.equal(compareMoney("$1 577 million", "$1 million").passed, false);
  });
  test("a bare m only scales after a currency", () => {
    assert.equal(parseQuantity("$5m")?.value, 5e6);
    assert.equal(parseQuantity("5 m")?.value, 5);
  });
});

describe("dates", () => {
  test("reads the forms contracts and filings use", () => {
    for (const s of ["2024-03-01", "March 1, 2024", "1 March 2024", "Mar. 1, 2024", "03/01/2024", "the 1st day of March, 2024"]) {
      assert.deepEqual(parseDate(s), { year: 2024, month: 3, day: 1 }, s);
    }
  });
  test("compares as precisely as the gold value", () => {
    assert.equal(compareDate("July 1, 2022", "2022-07-01").passed, true);
    assert.equal(compareDate("July 2, 2022", "2022-07-01").passed, false);
    assert.equal(compareDate("2022-07-19", "July 2022").passed, true);
    assert.equal(compareDate("no date here", "2022-07-01").passed, false);
  });
});

describe("normalised text and entity sets", () => {
  test("text ignores case, punctuation and articles, not words", () => {
    assert.equal(comparableWords("The Real Growth was flat."), "real growth was flat");
    assert.equal(compareText("Developed Rest of the World", "developed rest of world").passed, true);
    assert.equal(compareText("Developed Europe", "Developed Rest of the World").passed, false);
  });
  test("parties match across legal-form spellings; F1 gives partial credit", () => {
    const gold = ["Northwind Analytics, Inc.", "Harborview Logistics LLC"];
    assert.equal(compareEntities(["NORTHWIND ANALYTICS INC", "Harborview Logistics, L.L.C."], gold).score, 1);
    const half = compareEntities(["Northwind Analytics"], gold);
    assert.ok(Math.abs(half.score - 2 / 3) < 1e-9, half.reason);
    assert.equal(half.passed, false);
    assert.match(half.reason, /missing .*Harborview/);
    assert.equal(compareEntities("Northwind Analytics; Harborview Logistics", gold).score, 1);
  });
  test("discrepancy records match on equivalent values, not on near misses", () => {
    const gold = [{ section: "3.1", field: "fee", original: "$48,500", revised: "$52,000" }];
    assert.equal(compareEntities([{ section: "3.1", field: "fee", original: "USD 48,500", revised: "$52,000.00" }], gold).score, 1);
    assert.equal(compareEntities([{ section: "3.1", field: "fee", original: "$48,500", revised: "$25,000" }], gold).score, 0);
    assert.equal(compareEntities([], gold).score, 0);
    assert.equal(compareEntities([], []).score, 1);
  });
});

describe("citation check", () => {
  const pages: Record<string, string[]> = { "ADOBE_2022_10K.txt": ["cover", "Operating income\t6,098\t5,802\t4,237"] };
  const lookup = (d: string, p: number) => pages[d]?.[p - 1];
  test("passes when a cited page states the figure, in any scale convention", () => {
    assert.equal(checkCitations("$6,098 million", [{ document: "ADOBE_2022_10K.txt", page: 2 }], lookup).passed, true);
    assert.equal(checkCitations("$6.098 billion", [{ document: "ADOBE_2022_10K.txt", page: 2 }], lookup).passed, true);
  });
  test("fails on the wrong page, a missing page, or no citation", () => {
    assert.equal(checkCitations("$6,098 million", [{ document: "ADOBE_2022_10K.txt", page: 1 }], lookup).passed, false);
    const missing = checkCitations("$6,098 million", [{ document: "ADOBE_2022_10K.txt", page: 9 }], lookup);
    assert.match(missing.reason, /does not exist/);
    assert.equal(checkCitations("$6,098 million", undefined, lookup).passed, false);
  });
});

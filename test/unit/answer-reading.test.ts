// Reading a reply as a person does: the figure graded is the one the reply states as its
// result, names are not figures, roundings a careful reviewer accepts are accepted (and
// nothing a reviewer refuses), long replies are read, and refusals score 0 whatever the gold.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { answerSentence, refusalIn, sentences } from "../../src/core/reward/comparators/answer-reading";
import { compareMoney } from "../../src/core/reward/comparators/money";
import { compareNumber } from "../../src/core/reward/comparators/number";
import { comparePercent } from "../../src/core/reward/comparators/percent";
import { findQuantities } from "../../src/core/reward/comparators/quantity";

const money = (a: string, g: string) => compareMoney(a, g).passed;
const num = (a: string, g: string) => compareNumber(a, g).passed;
const pct = (a: string, g: string) => comparePercent(a, g).passed;

describe("the figure a reply states as its result", () => {
  test("the right-hand side of the last equation, not the first figure", () => {
    assert.equal(money("$19,815 million − $13,997 million = $5,818 million", "$5,818 million"), true);
    assert.equal(money("$19,815 million − $13,997 million = $5,818 million", "$19,815 million"), false);
    assert.equal(pct("The three year average would be (53.8% + 55.4% + 56.2%)/3 = 55.1%", "55.1%"), true);
  });
  test("the sentence that concludes, after the working", () => {
    const reply =
      "Operating income was $903,095 thousand in FY2015 and $1,493,602 thousand in FY2016.\n" +
      "The change is ($1,493,602 - $903,095) / $903,095 = 0.654.\nTherefore, the year-over-year change was 65.4%.";
    assert.equal(pct(reply, "65.4%"), true);
    assert.equal(pct(reply, "0.654%"), false);
  });
  test("a direct answer first, the explanation after it", () => {
    const reply = "The FY2016 COGS for Microsoft was $32,780 million. This comes from the FY2016 10-K, page 45.";
    assert.equal(money(reply, "$32,780 million"), true);
  });
  test("the figure after 'is/was/equals' in the answering sentence", () => {
    assert.equal(num("Based on $1,001,425 of assets, the working capital ratio was 1.73", "1.73"), true);
    assert.equal(pct("In 2019 the growth, up from 2.1%, was 3.4%.", "3.4%"), true);
    assert.equal(pct("In 2019 the growth, up from 2.1%, was 3.4%.", "2.1%"), false);
  });
  test("a long reply is read, not refused; a pasted table in the answering sentence is still a list of candidates", () => {
    const reply = `${"The filing discusses revenue recognition at length. ".repeat(60)}So the net income was $11,588 million.`;
    assert.ok(reply.length > 2000);
    assert.equal(money(reply, "$11,588 million"), true);
    assert.equal(
      money("Therefore: $11,588 million, $10,073 million, $3,033 million, $2,371 million, $9,000 million", "$11,588 million"),
      false,
    );
  });
  test("a range or two candidates in the answering sentence is not an answer", () => {
    assert.equal(money("Therefore it is $1,577 million or $1,600 million.", "$1,577 million"), false);
  });
  test("sentences split at full stops before a capital and at lines, never inside a decimal", () => {
    assert.deepEqual(
      sentences("It was 1.5 times. So 2.5 approx. more\nThen 3.").map((s) => s.text),
      ["It was 1.5 times.", "So 2.5 approx. more", "Then 3."],
    );
    assert.equal(answerSentence("A is 1. So B is 2. C is 3.", () => true)?.text, "So B is 2.");
  });
});

describe("names are not quantities", () => {
  test("3M, A380, Q3, 10-K, FY2019, S&P 500, Item 7", () => {
    const text = "3M's revenue, the A380, Q3, the 10-K, FY2019, the S&P 500, Item 7 and 3M Company";
    assert.deepEqual(findQuantities(text), []);
    assert.equal(money("3M's FY2022 capital expenditure was $1,749 million", "$1,749 million"), true);
    assert.equal(money("3M's FY2022 capital expenditure was $1,749 million", "$3 million"), false);
  });
  test("a scale letter after a currency or a decimal still scales", () => {
    assert.equal(findQuantities("$3M")[0]?.value, 3e6);
    assert.equal(findQuantities("1.5M units")[0]?.value, 1.5e6);
  });
});

describe("the rounding rule", () => {
  test("accepts what a careful reviewer accepts", () => {
    assert.equal(num("24.25", "24.26"), true); // one unit of the last digit, at the gold's precision
    assert.equal(num("3.45", "3.46"), true);
    assert.equal(pct("5.43%", "5.4%"), true); // rounds to the gold at its precision
    assert.equal(num("0.8257", "0.83"), true);
    assert.equal(money("$11.6 billion", "$11,588 million"), true); // the gold rounded to the answer's precision
    assert.equal(num("24.2451", "24.26"), true); // 0.06 % off, written more precisely
    assert.equal(num("$0", "0"), true); // zero of any amount
  });
  test("refuses what a careful reviewer refuses", () => {
    assert.equal(money("$59,286 million", "$59,268 million"), false); // digits transposed, 0.03 % off
    assert.equal(num("24.23", "24.26"), false); // three units off at the same precision
    assert.equal(pct("5.46%", "5.4%"), false); // 1.1 % off
    assert.equal(num("-0.0153", "-0.02"), false); // a coarse gold allows 0.5 % at most
    assert.equal(num("3.4946", "3.46"), false); // 1 % off
    assert.equal(num("$5", "0"), false);
    assert.equal(num("0.5", "0"), false);
  });
});

describe("refusals and hedges", () => {
  test("are recognised whatever the gold", () => {
    const restated =
      "The provided evidence does not explicitly outline any restructuring costs. Therefore, the quantity of restructuring costs is 0.";
    assert.equal(num(restated, "0"), false);
    assert.match(compareNumber(restated, "0").reason, /declines or hedges/);
    assert.equal(money("As an AI, I don't have real-time access; it may be $5,409 million.", "$5,409 million"), false);
    assert.equal(money("It is not possible to determine the figure from the excerpt.", "$5,409 million"), false);
  });
  test("a reply saying the filing shows none, as the question's rule asks, is an answer", () => {
    const answer = "The income statement does not explicitly outline any restructuring costs. Therefore, the quantity is 0.";
    assert.equal(refusalIn(answer), undefined);
    assert.equal(num(answer, "0"), true);
  });
});

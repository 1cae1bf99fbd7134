import assert from "node:assert/strict";
import { test } from "node:test";
import { finalSentence, sentences } from "../../../src/core/calibrate/final-sentence";

test("the final sentence: the last one, past decimals, abbreviations, initials and list marks", () => {
  assert.equal(
    finalSentence("FY2016 Net Sales: $135,987 million\n= 31.0%\n\nTherefore, the year-over-year change in revenue is 31.0%."),
    "Therefore, the year-over-year change in revenue is 31.0%.",
  );
  assert.equal(
    finalSentence("Apple Inc. reported $1.50 per share. The U.S. dividend was $0.23 a share."),
    "The U.S. dividend was $0.23 a share.",
  );
  assert.equal(finalSentence("Signed by J. Smith on behalf of 3M Co. in 2023."), "Signed by J. Smith on behalf of 3M Co. in 2023.");
  assert.equal(finalSentence("Revenue grew.\n- Net income was $5 million\n"), "Net income was $5 million");
  assert.equal(finalSentence("Is it 3M? Yes! It is 3M."), "It is 3M.");
  assert.equal(finalSentence("   "), "");
  assert.deepEqual(sentences("A is 1.5. B is 2.\n\n1. C is 3"), ["A is 1.5.", "B is 2.", "C is 3"]);
});

test("the final answer: a reply that ends with its sources states its answer before them", () => {
  assert.equal(
    finalSentence("Capex was $1,577 million in FY2018. This can be found under Item 7 of the filing."),
    "Capex was $1,577 million in FY2018.",
  );
  assert.equal(finalSentence("No figure here. Nor here."), "Nor here.");
});

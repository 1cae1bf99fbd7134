import assert from "node:assert/strict";
import { test } from "node:test";
import { neighbourFigures } from "../../src/core/audit/document-neighbours";
import { stringVariants } from "../../src/core/audit/perturb-answer";

const statement = [
  "Consolidated Statements of Operations (in millions)",
  "Year Ended December 31,\t2017\t2018\t2019",
  "Net product sales\t$\t118,573 $\t141,915 $\t160,408",
  "Net service sales\t$\t59,293 $\t90,972 $\t120,114",
  "Total net sales\t$\t177,866 $\t232,887 $\t280,522",
  "",
  "Net income\t$\t3,033 $\t10,073 $\t11,588",
  "Shares outstanding\t484\t487\t494",
].join("\n");

test("neighbour figures: the same line item in the other years, and the line items above and below in the same year", () => {
  const n = neighbourFigures(statement, 141915);
  assert.deepEqual(n.sameRow, [118573, 160408]);
  // Above it is the year header (no figure), so the nearest row with figures above is none; below, the next line item.
  assert.deepEqual(n.sameColumn, [90972]);
  assert.deepEqual(neighbourFigures(statement, 232887).sameColumn, [90972, 10073]);
  // Written in millions, asked in dollars: the same place is found, the neighbours come back in dollars.
  assert.deepEqual(neighbourFigures(statement, 11_588_000_000).sameRow, [3_033_000_000, 10_073_000_000]);
  // The year header is not a figure, a stray small number does not match a big amount, and a figure of another size is no slip.
  assert.deepEqual(neighbourFigures(statement, 2018), { sameRow: [], sameColumn: [] });
  assert.deepEqual(neighbourFigures(statement, 160), { sameRow: [], sameColumn: [] });
});

test("answer perturbations: another year's figure and another line item's, in the gold's own format, must be rejected", () => {
  const vs = stringVariants("$11,588 million", [], statement);
  const years = vs.filter((v) => v.operator === "other-year");
  assert.deepEqual(
    years.map((v) => v.answer),
    ["$3,033 million", "$10,073 million"],
  );
  assert.ok(years.every((v) => v.expect === "reject"));
  const items = vs.filter((v) => v.operator === "other-line-item").map((v) => v.answer);
  // The rows above and below with as many figures, across a blank line.
  assert.deepEqual(items, ["$280,522 million", "$494 million"]);
  // Without the document there are none.
  assert.equal(stringVariants("$11,588 million").filter((v) => v.operator.startsWith("other-")).length, 0);
});

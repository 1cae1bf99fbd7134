// The figure grading against FinanceBench's human verdicts (../shared/datasets/financebench-labels):
// no answer people marked wrong is accepted, and few they marked right are refused, on the
// reply's final answer and on the whole reply. `npx tsx scripts/grading/financebench-agreement.ts
// --disagreements` prints the confusion counts and every disagreement.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { agreement, type LabelledAnswer } from "../../scripts/grading/agreement";

const file = path.join(__dirname, "..", "..", "..", "shared", "datasets", "financebench-labels", "labels.jsonl");

test("figure answers graded as FinanceBench's reviewers graded them", { skip: !existsSync(file) && "no labelled set" }, async () => {
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LabelledAnswer);
  const { confusion } = await agreement(rows);
  for (const [mode, limit] of [
    ["final sentence", 0.05],
    ["whole reply", 0.15],
  ] as const) {
    const c = confusion[mode]!;
    const right = c.rightAccepted + c.rightRejected;
    assert.ok(right >= 80 && c.wrongAccepted + c.wrongRejected >= 60, `${mode}: the set holds enough figure answers`);
    assert.equal(c.wrongAccepted, 0, `${mode}: answers people marked wrong accepted`);
    assert.ok(c.rightRejected / right <= limit, `${mode}: ${c.rightRejected} of ${right} right answers refused`);
  }
  assert.equal(confusion["whole reply"]!.refusalAccepted, 0, "a refusal read whole is never accepted");
});

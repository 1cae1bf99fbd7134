// How often the figure comparators agree with FinanceBench's human reviewers: every labelled
// answer whose question has a bare-figure gold is graded as the shipped tasks grade it (the
// gold written with the question's unit, `auto` picking money/percent/number), once on the
// reply's final sentence and once on the whole reply, and the confusion counts are printed.
// A scratch tool for tuning the comparators; `rlenv calibrate` is the product's own.
//   npx tsx scripts/grading/financebench-agreement.ts [labels.jsonl] [--disagreements]
import { readFileSync } from "node:fs";
import path from "node:path";
import { agreement, type LabelledAnswer } from "./agreement";

const args = process.argv.slice(2);
const file =
  args.find((a) => !a.startsWith("--")) ??
  path.join(__dirname, "..", "..", "..", "shared", "datasets", "financebench-labels", "labels.jsonl");
const rows = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as LabelledAnswer);
void agreement(rows).then((r) => {
  for (const [mode, c] of Object.entries(r.confusion)) {
    const fr = c.rightRejected / Math.max(1, c.rightAccepted + c.rightRejected);
    console.log(
      `${mode}: right accepted ${c.rightAccepted}, right rejected ${c.rightRejected} (false rejects ${(100 * fr).toFixed(1)} %); ` +
        `wrong accepted ${c.wrongAccepted} of ${c.wrongAccepted + c.wrongRejected}; refusals accepted ${c.refusalAccepted} of ${c.refusalAccepted + c.refusalRejected}`,
    );
  }
  if (args.includes("--disagreements"))
    for (const d of r.disagreements)
      console.log(`\n[${d.mode}] ${d.id} ${d.label} gold=${d.gold}\n  ${d.reason}\n  > ${d.text.slice(0, 400).replace(/\n/g, " ")}`);
});

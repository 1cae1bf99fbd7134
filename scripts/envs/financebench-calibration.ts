// Builds a calibration copy of environments/document-financebench that has a task for every
// question of a FinanceBench labels file (../shared/datasets/financebench-labels/labels.jsonl
// asks 100 questions; the shipped environment has the 49 whose filing is under 1 MB). A question
// the environment has keeps its task as shipped (gold, grading, citation check); another gets the
// task scripts/envs/financebench.ts would make from its question and gold, without evidence pages
// (so no citation check and no page-table scale). The filings themselves are not needed: calibrate
// submits the labelled answers, it does not search.
// Run: npx tsx scripts/envs/financebench-calibration.ts LABELS.jsonl OUT_DIR
//      rlenv calibrate OUT_DIR --labels LABELS.jsonl [--final-sentence] [--cite-evidence]
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { questionUnit, toTask } from "./financebench-tasks";

const root = path.join(__dirname, "..", "..");
const shipped = path.join(root, "environments", "document-financebench");
const [labelsFile, outArg] = process.argv.slice(2);
if (!labelsFile || !outArg) {
  console.error("usage: npx tsx scripts/envs/financebench-calibration.ts LABELS.jsonl OUT_DIR");
  process.exit(2);
}
const out = path.resolve(outArg);

interface LabelQuestion {
  financebench_id: string;
  question: string;
  gold_answer: string;
}

/**
 * The results files give a numeric gold as a number, a percentage as its fraction (0.308 for
 * the open-source sample's "30.8%"): written back as the sample writes it, a fraction as a
 * percentage where the question asks for one ("in units of percents", "% margin").
 */
function goldText(gold: string | number, question: string): string {
  if (typeof gold === "string") return gold;
  const percent = questionUnit(question).percent || /%/.test(question);
  return percent ? `${Number((gold * 100).toFixed(10))}%` : String(gold);
}

function questionsOf(file: string): LabelQuestion[] {
  const byId = new Map<string, LabelQuestion>();
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      const o = JSON.parse(line) as Record<string, unknown>;
      for (const k of ["financebench_id", "question"])
        if (typeof o[k] !== "string") throw new Error(`${file}:${i + 1}: '${k}' is missing or not text`);
      if (typeof o.gold_answer !== "string" && typeof o.gold_answer !== "number")
        throw new Error(`${file}:${i + 1}: 'gold_answer' is missing or neither text nor a number`);
      const id = o.financebench_id as string;
      const question = o.question as string;
      if (!byId.has(id)) byId.set(id, { financebench_id: id, question, gold_answer: goldText(o.gold_answer, question) });
    });
  return [...byId.values()];
}

const shippedTasks = new Map(
  readFileSync(path.join(shipped, "tasks.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const t = JSON.parse(l) as { id: string };
      return [t.id, t] as const;
    }),
);
const tasks = questionsOf(labelsFile).map((q) => {
  const id = `fb-${q.financebench_id.replace(/^financebench_id_/, "")}`;
  return (
    shippedTasks.get(id) ??
    toTask(
      { financebench_id: q.financebench_id, doc_name: "", question: q.question, answer: q.gold_answer, question_type: "", evidence: [] },
      [],
      false,
    )
  );
});
if (existsSync(out)) rmSync(out, { recursive: true });
mkdirSync(out, { recursive: true });
cpSync(path.join(shipped, "documents"), path.join(out, "documents"), { recursive: true });
writeFileSync(
  path.join(out, "environment.yaml"),
  readFileSync(path.join(shipped, "environment.yaml"), "utf8").replace(
    /^name: document-financebench$/m,
    "name: document-financebench-calibration",
  ),
);
writeFileSync(path.join(out, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
const added = tasks.filter((t) => !shippedTasks.has((t as { id: string }).id)).length;
console.log(`wrote ${tasks.length} tasks (${tasks.length - added} as shipped, ${added} from the labels' questions) to ${out}`);

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readLabels, readVerdict } from "../../../src/core/calibrate/labels";

function labelsFile(lines: string[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-labels-")), "labels.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const FB = {
  financebench_id: "financebench_id_00499",
  model_name: "gpt-4",
  eval_mode: "oracle",
  question: "What is X?",
  gold_answer: "$5,818 million",
  model_answer: "X was $5,818 million.",
  label: "Correct Answer",
};

test("labels: the native form and FinanceBench's results lines, read as they are", () => {
  const file = labelsFile([
    JSON.stringify({ task: "t1", answer: "42", verdict: "accept", group: "a" }),
    JSON.stringify({ task: "t2", answer: { answer: "7", citations: [] }, verdict: 0.4, fields: { answer: "reject" } }),
    JSON.stringify({ task: "t3", trajectory: "runs/x.jsonl", verdict: false }),
    "",
    JSON.stringify(FB),
    JSON.stringify({ ...FB, financebench_id: "financebench_id_01865", label: "Refusal" }),
  ]);
  const r = readLabels(file, { scoreAt: 0.5 });
  assert.deepEqual(r.problems, []);
  assert.equal(r.lines, 5);
  assert.deepEqual(
    r.labels.map((l) => [l.line, l.task, l.verdict, l.group ?? null]),
    [
      [1, "t1", "accept", "a"],
      [2, "t2", "reject", null],
      [3, "t3", "reject", null],
      [5, "fb-00499", "accept", "gpt-4_oracle"],
      [6, "fb-01865", "reject", "gpt-4_oracle"],
    ],
  );
  assert.deepEqual(r.labels[1]?.fields, { answer: "reject" });
  // A trajectory is found beside the labels file.
  assert.equal(r.labels[2]?.trajectory, path.join(path.dirname(file), "runs/x.jsonl"));
  assert.equal(r.labels[3]?.answer, "X was $5,818 million.");
});

test("labels: a bad line names its line and field (FinanceBench's own field name) and the others are still read", () => {
  const file = labelsFile([
    JSON.stringify({ task: "t1", answer: "42", verdict: "accept" }),
    "{not json",
    JSON.stringify({ task: "t2", verdict: "accept" }),
    JSON.stringify({ task: "t3", answer: "1", verdict: "maybe" }),
    JSON.stringify({ task: "t4", answer: "1", verdict: "accept", colour: "red" }),
    JSON.stringify({ ...FB, label: undefined }),
    JSON.stringify({ task: "t5", answer: "1", verdict: "yes", fields: { answer: [] } }),
    JSON.stringify({ task: "t6", answer: "9", verdict: "no" }),
  ]);
  const r = readLabels(file, { scoreAt: 1 });
  assert.deepEqual(
    r.labels.map((l) => l.task),
    ["t1", "t6"],
  );
  assert.deepEqual(
    r.problems.map((p) => [p.line, p.field]),
    [
      [2, "(line)"],
      [3, "answer"],
      [4, "verdict"],
      [5, "colour"],
      [6, "label"],
      [7, "fields.answer"],
    ],
  );
  assert.ok(r.problems.every((p) => p.file === file));
  assert.match(r.problems[2]!.message, /'maybe' is not a known verdict/);
});

test("verdicts: words, booleans, scores at the bar, and --accept-label words", () => {
  assert.equal(readVerdict("Correct Answer", { scoreAt: 1 }), "accept");
  assert.equal(readVerdict("Incorrect Answer", { scoreAt: 1 }), "reject");
  assert.equal(readVerdict("Refusal", { scoreAt: 1 }), "reject");
  assert.equal(readVerdict(true, { scoreAt: 1 }), "accept");
  assert.equal(readVerdict(4, { scoreAt: 4 }), "accept");
  assert.equal(readVerdict(3.9, { scoreAt: 4 }), "reject");
  // Given accept words, any other word rejects (a "partially correct" the user counts as wrong).
  assert.equal(readVerdict("Partially correct", { labels: ["correct", "mostly right"], scoreAt: 1 }), "reject");
  assert.equal(readVerdict("Mostly Right", { labels: ["correct", "mostly right"], scoreAt: 1 }), "accept");
  assert.deepEqual(readVerdict(null, { scoreAt: 1 }), { error: "needs a word, a boolean or a number" });
});

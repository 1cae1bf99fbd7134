// Static validation catches what would otherwise fail (or silently mis-grade) in every rollout,
// each with file, line and field: NUL bytes in strings, unknown YAML tags, nesting too deep for
// the parser, a task's target.grading naming a comparator that does not exist, a unit-bearing
// gold given to a comparator that ignores units, and a grading field the report cannot hold.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Problem } from "../../src/core/model/problem";
import { authoringProblems } from "../../src/core/lint/authoring-checks";

let work: string;
before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-validate-grading-"));
});
after(() => rmSync(work, { recursive: true, force: true }));

const MANIFEST = [
  "name: t",
  "domain: document",
  "tasks: tasks.jsonl",
  "documents: { path: documents }",
  "reward:",
  "  - type: fields",
  "    fields:",
  "      answer: { comparator: auto }",
  "",
].join("\n");

let n = 0;
/** An environment folder with this manifest and these task lines; returns every problem validate reports. */
async function validate(manifest: string, tasks: unknown[] | string): Promise<Problem[]> {
  const dir = path.join(work, `env${n++}`);
  mkdirSync(path.join(dir, "documents"), { recursive: true });
  writeFileSync(path.join(dir, "documents", "a.txt"), "Capacity is 148.5 MW.");
  writeFileSync(path.join(dir, "environment.yaml"), manifest);
  writeFileSync(path.join(dir, "tasks.jsonl"), typeof tasks === "string" ? tasks : `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  const r = loadEnvironment(dir);
  return [...r.problems, ...(r.env ? await authoringProblems(r.env) : [])];
}

const at = (p: Problem) => `${path.basename(p.file)}:${p.line}:${p.column} ${p.path}`;
const task = (target: Record<string, unknown>) => ({ id: "a", prompt: "p", target: { answer: "1", ...target } });

describe("validation positions what would fail in a rollout", () => {
  test("a NUL byte in a reward command, an image name or a task's prompt", async () => {
    const manifest = `${MANIFEST.replace("reward:", 'sandbox: { image: "rlenv/python\\0evil" }\nreward:\n  - type: script\n    command: "python3 check.py\\0 --skip"')}`;
    const problems = (await validate(manifest, [task({})])).filter((p) => /NUL byte/.test(p.message));
    assert.deepEqual(problems.map(at).sort(), ["environment.yaml:5:19 sandbox.image", "environment.yaml:8:14 reward[0].command"]);
    const inTask = (await validate(MANIFEST, '{"id":"a","prompt":"p\\u0000q","target":{"answer":"1"}}\n')).filter((p) =>
      /NUL byte/.test(p.message),
    );
    assert.deepEqual(inTask.map(at), ["tasks.jsonl:1:20 tasks[0].prompt"]);
  });
  test("an unknown YAML tag is refused at the tag, not read as text", async () => {
    const problems = await validate(MANIFEST.replace("name: t", 'name: t\ndescription: !!js/function "function(){}"'), [task({})]);
    const tag = problems.find((p) => /unknown tag/.test(p.message));
    assert.ok(tag, JSON.stringify(problems));
    assert.equal(`${tag.line}:${tag.column}`, "2:14");
    assert.match(tag.message, /!!js\/function/);
  });
  test("nesting too deep for the parser is a positioned error, not a stack overflow", async () => {
    const problems = await validate(`${MANIFEST}metadata:\n  x:\n    ${"- ".repeat(20000)}1\n`, [task({})]);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.equal(problems[0]!.line, 11);
    assert.match(problems[0]!.message, /nested deeper than \d+ levels/);
    assert.doesNotMatch(problems[0]!.message, /call stack/);
  });
  test("a comparator that does not exist in a task's target.grading", async () => {
    const problems = await validate(MANIFEST, [task({ grading: { answer: { comparator: "quantiy" } } })]);
    const p = problems.find((x) => /no comparator/.test(x.message));
    assert.ok(p, JSON.stringify(problems));
    assert.equal(at(p), "tasks.jsonl:1:81 tasks[0].target.grading.answer.comparator");
    assert.match(p.message, /did you mean 'quantity'/);
    assert.equal(p.severity, "error");
  });
  test("options a comparator does not take, and a grading field the report schema lacks", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const problems = await validate(MANIFEST, [
      task({ schema, grading: { answer: { comparator: "money", rel_tol: -1 }, answr: { comparator: "text" } } }),
    ]);
    assert.ok(
      problems.some((p) => p.path === "tasks[0].target.grading.answer.rel_tol" && p.severity === "error"),
      JSON.stringify(problems),
    );
    const missing = problems.find((p) => p.path === "tasks[0].target.grading.answr");
    assert.match(missing?.message ?? "", /no field 'answr'.*did you mean 'answer'/);
  });
  test("a gold with a unit given to a comparator that ignores units is a warning; quantity, number and auto are not", async () => {
    const warned = await validate(MANIFEST, [task({ answer: "148.5 MW", grading: { answer: { comparator: "money" } } })]);
    const w = warned.find((p) => /has a unit \(power\)/.test(p.message));
    assert.equal(w?.path, "tasks[0].target.answer");
    assert.equal(w?.severity, "warning");
    for (const comparator of ["quantity", "number", "auto"]) {
      const ok = await validate(MANIFEST, [task({ answer: "148.5 MW", grading: { answer: { comparator } } })]);
      assert.deepEqual(
        ok.filter((p) => /unit/.test(p.message)),
        [],
        comparator,
      );
    }
  });
  test("quantity and legal-text, which the reference documents, pass the schema", async () => {
    const manifest = MANIFEST.replace("{ comparator: auto }", "{ comparator: quantity }\n      party: { comparator: legal-text }");
    const problems = await validate(manifest, [task({ answer: "148.5 MW", party: "the Licensee" })]);
    assert.deepEqual(
      problems.filter((p) => p.severity === "error"),
      [],
    );
  });
});

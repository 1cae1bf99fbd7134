import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { NopPolicy } from "../../src/core/policy/nop";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { SandboxProvider } from "../../src/core/model/sandbox";

const root = path.join(__dirname, "..", "..");
let work: string;

/** The document domain runs in-process: a rollout that asks for a sandbox is a bug, so the provider refuses. */
const noSandbox = {
  backend: "none",
  acquire: () => Promise.reject(new Error("the document domain must not start a sandbox")),
} as unknown as SandboxProvider;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-doc-runs-"));
  process.env.RLENV_CACHE_DIR = path.join(work, "cache");
  // No judge here: judge-graded fields must be skipped with a reason, never passed.
  delete process.env.RLENV_JUDGE_BASE_URL;
  delete process.env.RLENV_BASE_URL;
  delete process.env.OPENAI_BASE_URL;
});
after(() => rmSync(work, { recursive: true, force: true }));

function load(name: string): Environment {
  const r = loadEnvironment(path.join(root, "environments", name));
  assert.deepEqual(
    r.problems.filter((p) => p.severity === "error"),
    [],
  );
  assert.ok(r.env);
  return r.env;
}

async function play(env: Environment, taskId: string, policy: "oracle" | "nop") {
  const task = env.tasks.find((t) => t.id === taskId)!;
  const file = path.join(work, `${env.manifest.name}-${taskId}-${policy}.jsonl`);
  const result = await runRollout({
    env,
    task,
    policy: policy === "oracle" ? new OraclePolicy(task.solution) : new NopPolicy(),
    sandboxProvider: noSandbox,
    file,
    runId: "doc-test",
    rolloutId: `${taskId}-${policy}`,
  });
  const events = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { result, events };
}

function fieldDetails(events: Array<Record<string, unknown>>) {
  const reward = events.find((e) => e.type === "reward") as
    | { components: Array<{ details?: { fields?: Array<Record<string, unknown>> } }> }
    | undefined;
  return reward?.components[0]?.details?.fields ?? [];
}

describe("document-contract-review", () => {
  test("has at least 6 contracts, each in two versions of a few pages", () => {
    const env = load("document-contract-review");
    assert.ok(env.tasks.length >= 6);
    for (const t of env.tasks) {
      const slug = t.id.replace(/^review-/, "");
      assert.ok(existsSync(path.join(env.paths.documents!, slug, "version-1.txt")));
      assert.ok(existsSync(path.join(env.paths.documents!, slug, "version-2.html")));
    }
  });
  test("oracle scores 1 and nop scores 0 on every task", async () => {
    const env = load("document-contract-review");
    for (const t of env.tasks) {
      const oracle = await play(env, t.id, "oracle");
      assert.equal(oracle.result.reward, 1, `${t.id}: ${JSON.stringify(fieldDetails(oracle.events))}`);
      const nop = await play(env, t.id, "nop");
      assert.equal(nop.result.reward ?? 0, 0, `${t.id} nop`);
      // The nop's empty report is refused with the schema's complaints, as an observation.
      const refusal = nop.events.find((e) => e.type === "observation" && e.name === "submit_report") as { error?: string } | undefined;
      assert.match(String(refusal?.error), /does not match the schema/);
    }
  });
  test("a report with one discrepancy missed and a party misspelt gets partial credit", async () => {
    const env = load("document-contract-review");
    const task = env.tasks[0]!;
    const gold = task.solution!.answer as { parties: string[]; discrepancies: unknown[] };
    const partial = { ...gold, parties: [gold.parties[0]!.toUpperCase(), "Someone Else LLC"], discrepancies: gold.discrepancies.slice(1) };
    const policyTask = { ...task, solution: { answer: partial } };
    const file = path.join(work, "partial.jsonl");
    const r = await runRollout({
      env,
      task: policyTask,
      policy: new OraclePolicy(policyTask.solution),
      sandboxProvider: noSandbox,
      file,
      runId: "doc-test",
      rolloutId: "partial",
    });
    assert.ok(r.reward !== null && r.reward > 0.3 && r.reward < 1, `reward ${r.reward}`);
  });
});

describe("document-financebench", () => {
  test("49 questions over 31 filings; numeric ones graded by figure, the rest by the judge", () => {
    const env = load("document-financebench");
    assert.equal(env.tasks.length, 49);
    const kinds = env.tasks.map((t) => (t.target as { grading: { answer: { comparator: string } } }).grading.answer.comparator);
    assert.ok(kinds.filter((k) => k !== "judge").length >= 15);
  });
  test("oracle scores 1 on every numeric question (citation checked where the page prints the figure); nop scores 0", async () => {
    const env = load("document-financebench");
    const numeric = env.tasks.filter(
      (t) => (t.target as { grading: { answer: { comparator: string } } }).grading.answer.comparator !== "judge",
    );
    for (const t of numeric) {
      const oracle = await play(env, t.id, "oracle");
      assert.equal(oracle.result.reward, 1, `${t.id}: ${JSON.stringify(fieldDetails(oracle.events))}`);
      // The cited evidence page is recorded in the observation for the viewer.
      const submitted = oracle.events.find((e) => e.type === "observation" && e.name === "submit_report") as
        | { artifacts?: { citations?: Array<{ page: number }> } }
        | undefined;
      assert.ok((submitted?.artifacts?.citations ?? []).length > 0, `${t.id}: no citation recorded`);
      const nop = await play(env, t.id, "nop");
      assert.equal(nop.result.reward ?? 0, 0);
    }
  });
  test("a judge question with no judge endpoint is skipped with its reason and scores 0", async () => {
    const env = load("document-financebench");
    const t = env.tasks.find((x) => (x.target as { grading: { answer: { comparator: string } } }).grading.answer.comparator === "judge")!;
    const oracle = await play(env, t.id, "oracle");
    assert.equal(oracle.result.reward, 0);
    const f = fieldDetails(oracle.events)[0]!;
    assert.equal(f.passed, false);
    assert.match(String(f.reason), /skipped: judge: no base URL/);
  });
  test("a wrong figure, and a right figure citing the wrong page, both score 0", async () => {
    const env = load("document-financebench");
    const t = env.tasks.find((x) => (x.target as { grading: { answer: { cite?: boolean } } }).grading.answer.cite)!;
    const sol = t.solution!.answer as { answer: string; citations: Array<{ document: string; page: number }> };
    const wrongPage = { ...t, solution: { answer: { ...sol, citations: [{ ...sol.citations[0]!, page: 1 }] } } };
    const r1 = await runRollout({
      env,
      task: wrongPage,
      policy: new OraclePolicy(wrongPage.solution),
      sandboxProvider: noSandbox,
      file: path.join(work, "wp.jsonl"),
      runId: "doc-test",
      rolloutId: "wp",
    });
    assert.equal(r1.reward, 0);
    const wrongFigure = { ...t, solution: { answer: { ...sol, answer: "$1.00" } } };
    const r2 = await runRollout({
      env,
      task: wrongFigure,
      policy: new OraclePolicy(wrongFigure.solution),
      sandboxProvider: noSandbox,
      file: path.join(work, "wf.jsonl"),
      runId: "doc-test",
      rolloutId: "wf",
    });
    assert.equal(r2.reward, 0);
  });
});

describe("real FinanceBench PDFs", () => {
  const pdfs = path.join(root, "..", "shared", "datasets", "financebench", "pdfs");
  const skip = existsSync(pdfs) ? false : `the FinanceBench PDFs are not at ${pdfs}`;
  test("a 10-K's income statement page keeps its table rows", { skip }, async () => {
    const { parsePdf } = await import("../../src/core/domains/document/parse/pdf");
    const file = path.join(pdfs, "ADOBE_2022_10K.pdf");
    const pages = await parsePdf(new Uint8Array(readFileSync(file)), file);
    assert.ok(pages.length > 90);
    // The dataset's evidence page 53 (zero-indexed) is our page 54.
    assert.match(pages[53]!.text, /^Operating income\t6,098\t5,802\t4,237$/m);
    assert.match(pages[53]!.text, /^Interest expense\t\(112\)\t\(113\)\t\(116\)$/m);
  });
  test("a real filing cut off mid-download gives a clear error naming the file", { skip }, async () => {
    const { parsePdf } = await import("../../src/core/domains/document/parse/pdf");
    const bytes = readFileSync(path.join(pdfs, "PEPSICO_2023_8K_dated-2023-05-05.pdf"));
    const cut = new Uint8Array(bytes.subarray(0, Math.floor(bytes.length / 2)));
    await assert.rejects(parsePdf(cut, "PEPSICO_2023_8K_partial.pdf"), /^DocumentError: PEPSICO_2023_8K_partial\.pdf: not a readable PDF/);
  });
});

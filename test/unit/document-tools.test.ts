import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCorpus } from "../../src/core/domains/document/corpus";
import { documentDomain } from "../../src/core/domains/document";
import type { ToolContext, ToolDefinition } from "../../src/core/model/domain";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { makeEnvDir } from "../support/tmp-env";
import { corruptPdf, makePdf } from "./document-fixtures";

const MANIFEST = `name: doc-tools
domain: document
tasks: tasks.jsonl
documents: { path: docs, chunk_tokens: 40 }
tools: [list_documents, search, read, find, submit_report]
reward:
  - type: fields
    fields:
      answer: { comparator: auto }
`;
const TASK = {
  id: "t1",
  prompt: "What was total revenue in 2022?",
  target: { answer: "$17,606 million", evidence: [{ document: "filing.pdf", page: 2 }] },
  solution: { answer: { answer: "$17,606 million", citations: [{ document: "filing.pdf", page: 2 }] } },
};

let envDir: { dir: string; cleanup: () => void };
let cache: string;
let env: Environment;
const tools = new Map<string, ToolDefinition>();

function ctx(): ToolContext {
  return {
    env,
    task: env.tasks[0]!,
    sandbox: () => Promise.reject(new Error("the document tools must not start a sandbox")),
    state: new Map(),
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  };
}
const call = (name: string, args: Record<string, unknown>, c = ctx()) => tools.get(name)!.run(args, c);

before(() => {
  cache = mkdtempSync(path.join(tmpdir(), "rlenv-doc-cache-"));
  process.env.RLENV_CACHE_DIR = cache;
  envDir = makeEnvDir({
    "environment.yaml": MANIFEST,
    "tasks.jsonl": `${JSON.stringify(TASK)}\n`,
    "docs/notes.md":
      "# Notes\n\nThe board met on 2022-07-01 to approve the supplemental indentures.\fSecond page of notes: nothing about money.",
    "docs/table.csv": 'segment,revenue,growth\nEntertainment,"$1,234",9%\n"Computing, mobile","$5,678",-2%\n',
    "docs/bad.csv": 'segment,revenue\nGaming,"$1,234\n',
    "docs/press.html":
      "<html><head><style>p{}</style><script>alert('no')</script></head><body><h1>Press release</h1><p>Net income was &#36;4,756 million.</p><div style=\"page-break-before: always\"><table><tr><th>Item</th><th>2022</th></tr><tr><td>Operating income</td><td>6,098</td></tr></table></div></body></html>",
  });
  writeFileSync(
    path.join(envDir.dir, "docs/filing.pdf"),
    makePdf([
      "ADOBE INC. ANNUAL REPORT",
      "CONSOLIDATED STATEMENTS OF INCOME\nTotal revenue 17,606 15,785 12,868\nOperating income 6,098 5,802 4,237",
      "Signatures",
    ]),
  );
  writeFileSync(path.join(envDir.dir, "docs/broken.pdf"), corruptPdf());
  writeFileSync(path.join(envDir.dir, "docs/locked.pdf"), makePdf(["secret"], { encrypt: true }));
  const loaded = loadEnvironment(envDir.dir);
  assert.ok(loaded.env, JSON.stringify(loaded.problems));
  env = loaded.env;
  for (const t of documentDomain.tools(env)) tools.set(t.name, t);
});
after(() => {
  envDir.cleanup();
  rmSync(cache, { recursive: true, force: true });
});

describe("document corpus", () => {
  test("a corrupt and an encrypted PDF (and a broken CSV) are named in clear errors; the other documents load", async () => {
    const corpus = await buildCorpus(path.join(envDir.dir, "docs"), 40);
    assert.deepEqual(
      corpus.documents.map((d) => d.name),
      ["filing.pdf", "notes.md", "press.html", "table.csv"],
    );
    const messages = corpus.problems.map((p) => p.message).sort();
    assert.equal(messages.length, 3);
    assert.match(messages[0]!, /bad\.csv: line 2: a quoted field is never closed/);
    assert.match(messages[1]!, /broken\.pdf: not a readable PDF/);
    assert.match(messages[2]!, /locked\.pdf: the PDF is encrypted/);
  });
  test("pages are kept: PDF pages, form feeds in text, page breaks in HTML, CSV rows as tab-separated lines", async () => {
    const corpus = await buildCorpus(path.join(envDir.dir, "docs"), 40);
    const doc = (n: string) => corpus.documents.find((d) => d.name === n)!;
    assert.equal(doc("filing.pdf").pages.length, 3);
    assert.match(doc("filing.pdf").pages[1]!.text, /^Total revenue 17,606 15,785 12,868$/m);
    assert.equal(doc("notes.md").pages.length, 2);
    assert.deepEqual(
      doc("press.html").pages.map((p) => p.text),
      ["Press release\nNet income was $4,756 million.", "Item\t2022\nOperating income\t6,098"],
    );
    assert.equal(doc("table.csv").pages[0]!.text, "segment\trevenue\tgrowth\nEntertainment\t$1,234\t9%\nComputing, mobile\t$5,678\t-2%");
  });
  test("parsed pages are cached by content hash and reused", async () => {
    const first = await buildCorpus(path.join(envDir.dir, "docs"), 40);
    assert.ok(readdirSync(path.join(cache, "documents")).length >= 4);
    const second = await buildCorpus(path.join(envDir.dir, "docs"), 40);
    assert.equal(second.parsed, 0, "every readable document came from the cache");
    assert.deepEqual(
      second.documents.map((d) => d.pages),
      first.documents.map((d) => d.pages),
    );
  });
});

describe("document tools", () => {
  test("list_documents gives name, pages and size, and names unreadable files", async () => {
    const r = await call("list_documents", {});
    assert.match(String(r.output), /^filing\.pdf\t3 pages\t\d+ KB\tpdf$/m);
    assert.match(String(r.output), /unreadable: .*locked\.pdf: the PDF is encrypted/);
  });
  test("search ranks the page that holds the terms first, with a citation per hit", async () => {
    const r = await call("search", { query: "operating income", k: 3 });
    assert.equal(r.error, undefined);
    const cites = r.artifacts?.citations ?? [];
    assert.ok(cites.length >= 2);
    assert.ok(cites.every((c) => c.end > c.start || c.end === c.start));
    const top = cites[0]!;
    assert.ok((top.document === "filing.pdf" && top.page === 2) || (top.document === "press.html" && top.page === 2), JSON.stringify(top));
    const only = await call("search", { query: "revenue", document: "table.csv" });
    assert.ok((only.artifacts?.citations ?? []).every((c) => c.document === "table.csv"));
    const none = await call("search", { query: "zeppelin" });
    assert.match(String(none.output), /no passage matches/);
  });
  test("read returns a bounded page or range with its citation; bad pages are errors the agent can read", async () => {
    const r = await call("read", { document: "filing.pdf", page: 2 });
    assert.match(String(r.output), /Operating income 6,098/);
    const pageLength = /chars 0-(\d+) of (\d+)/.exec(String(r.output));
    assert.equal(pageLength?.[1], pageLength?.[2], "a short page is read whole");
    assert.deepEqual(r.artifacts?.citations?.[0], { document: "filing.pdf", page: 2, start: 0, end: Number(pageLength?.[2]) });
    const part = await call("read", { document: "filing", page: 2, start: 0, end: 10 });
    assert.match(String(part.output), /chars 0-10 of \d+\)\nCONSOLIDAT\n\[… page continues: read with start=10\]/);
    const range = await call("read", { document: "notes.md", start: 0, end: 100000 });
    assert.equal(range.artifacts?.citations?.length, 2, "a range over two pages cites both");
    const bad = await call("read", { document: "filing.pdf", page: 9 });
    assert.equal(bad.status, "error");
    assert.match(String(bad.error), /between 1 and 3/);
    const unknown = await call("read", { document: "filling.pdf" });
    assert.match(String(unknown.error), /did you mean 'filing\.pdf'/);
  });
  test("find returns regex matches with spans, bounded", async () => {
    const r = await call("find", { pattern: "\\d{1,3},\\d{3}", max_matches: 2 });
    assert.equal(r.artifacts?.citations?.length, 2);
    assert.match(String(r.output), /more matches not shown/);
    const c = r.artifacts!.citations![0]!;
    assert.equal(c.text, "17,606");
    const bad = await call("find", { pattern: "(unclosed" });
    assert.match(String(bad.error), /invalid regular expression/);
    const explosive = await call("find", { pattern: "(\\w+\\s?)+$" });
    assert.match(String(explosive.error), /exponential time/);
    const fine = await call("find", { pattern: "(total|net) (revenue|income)" });
    assert.equal(fine.error, undefined);
  });
  test("submit_report returns schema errors as an observation, then accepts a valid report", async () => {
    const c = ctx();
    const wrong = await call("submit_report", { answer: 17606 }, c);
    assert.equal(wrong.submit, undefined);
    assert.match(String(wrong.error), /does not match the schema[\s\S]*answer[\s\S]*citations/);
    const ok = await call("submit_report", { answer: "$17,606 million", citations: [{ document: "filing.pdf", page: 2 }] }, c);
    assert.deepEqual(ok.submit, { answer: { answer: "$17,606 million", citations: [{ document: "filing.pdf", page: 2 }] } });
    assert.equal(ok.artifacts?.citations?.[0]?.page, 2);
  });
  test("no tool starts a sandbox and the plugin's setup loads the corpus once", async () => {
    const c = ctx();
    await documentDomain.setup!(c);
    assert.ok(c.state.get("document.corpus"));
    assert.ok(existsSync(cache));
  });
  test("setup rejects a task whose target does not fit, naming the task and the field", async () => {
    const c = { ...ctx(), task: { ...env.tasks[0]!, target: { evidence: [{ document: "filing.pdf", page: 0 }] } } };
    await assert.rejects(documentDomain.setup!(c), /task t1: target\.evidence\.0\.page: .*/);
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { markCitations, valueRanges } from "../../../src/core/view/model/citations";
import type { DocumentsView } from "../../../src/core/view/protocol/trajectory";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type FixtureRuns, writeFixtureRuns } from "../../fixtures/trajectories";

let runs: FixtureRuns;
before(() => {
  runs = writeFixtureRuns(mkdtempSync(path.join(tmpdir(), "rlenv-cite-")));
});

test("value ranges: the same figure in any scale convention, or the same words", () => {
  const text = "Revenue was $4,210 million (2023: $3,898 million); in thousands: 4,210,000. Net loss ($1,577 million).";
  const at = (v: unknown) => valueRanges(text, v).map(([s, e]) => text.slice(s, e));
  assert.deepEqual(at("$4.21 billion"), ["$4,210 million", "4,210,000"]);
  assert.deepEqual(at("4210"), ["$4,210 million"]);
  assert.ok(at("-1577 million").some((s) => s.includes("1,577")));
  assert.deepEqual(at("$3,898 million"), ["$3,898 million"]);
  assert.deepEqual(at("net LOSS"), ["Net loss"]);
  assert.deepEqual(at("$9 million"), []);
});

test("citations: the cited page read, the cited span, the submitted figure marked; a wrong answer's gold located", async () => {
  const dir = path.join(runs.document, "rollouts");
  const failing = readdirSync(dir).find((f) => readFileSync(path.join(dir, f), "utf8").includes("got a per-share amount"));
  assert.ok(failing, "the fixture run has a wrong document answer");
  const v = (await new ViewService(runs.document).handle("documents", { file: `rollouts/${failing}` })) as DocumentsView;
  const p3 = v.pages.findIndex((p) => p.page === 3);
  const p7 = v.pages.findIndex((p) => p.page === 7);
  const text = (i: number, m: { start: number; end: number }) => v.pages[i]!.text.slice(m.start, m.end);
  assert.deepEqual(
    v.citations.map((c) => [c.page_index, c.span && v.pages[c.page_index!]!.text.slice(...c.span)]),
    [
      [p3, "$4,210 million"],
      [p3, "Springfield, Illinois"],
      [p7, "$1.20 per share"],
    ],
  );
  const marks = (i: number, kind: string) => (v.pages[i]!.marks ?? []).filter((m) => m.kind === kind).map((m) => [m.field, text(i, m)]);
  assert.deepEqual(marks(p3, "submitted"), [
    ["revenue_2024", "$4,210 million"],
    ["headquarters", "Springfield, Illinois"],
  ]);
  assert.deepEqual(marks(p7, "submitted"), [["net_income", "$1.20"]]);
  assert.deepEqual(marks(p7, "gold"), [["net_income", "$455 million"]]);
  const ni = v.fields.find((f) => f.field === "net_income")!;
  assert.equal(ni.passed, false);
  assert.deepEqual(ni.gold_at, [p7]);
  assert.equal(v.fields.find((f) => f.field === "revenue_2024")!.gold_at, undefined, "only wrong answers get their gold located");
});

test("citations: a whole-page citation (what submit_report writes) has no span; one of a page never read points nowhere", () => {
  const page = {
    row: 2,
    tool: "read",
    document: "ADOBE_2022_10K.txt",
    page: 54,
    text: "Total net revenue 17,606 and 15,785 ... Net income $4,756",
    offset: 0,
  };
  const v = markCitations({
    pages: [page],
    citations: [
      {
        document: "ADOBE_2022_10K.txt",
        page: 54,
        start: 0,
        end: page.text.length,
        row: 5,
        page_index: null,
        span: null,
        search_index: null,
      },
      { document: "ADOBE_2022_10K.txt", page: 60, start: 0, end: 900, row: 5, page_index: null, span: null, search_index: null },
    ],
    report: { revenue: "$17,606 million" },
    fields: [
      {
        field: "revenue",
        component: "fields",
        comparator: "money",
        got: "$17,606 million",
        expected: "$17.61 billion",
        passed: true,
        score: 1,
        reason: null,
      },
    ],
  });
  assert.deepEqual(
    v.citations.map((c) => [c.page_index, c.span]),
    [
      [0, null],
      [null, null],
    ],
  );
  assert.deepEqual(
    (v.pages[0]!.marks ?? []).map((m) => [m.kind, page.text.slice(m.start, m.end)]),
    [["submitted", "17,606"]],
  );
});

test("citations after a search that named no document: each links to the read that covers it; a page seen only in search results is flagged never read", () => {
  const read = {
    row: 1,
    tool: "read",
    document: "ACME_10K.pdf",
    page: 3,
    text: "Revenue was $4,210 million in 2024.",
    offset: 0,
  };
  // The search came after the read and its snippets hold both cited sentences.
  const search = {
    row: 2,
    tool: "search",
    document: null,
    page: null,
    text: "[1] ACME_10K.pdf p.3 chars 0-35\nRevenue was $4,210 million in 2024.\n\n[2] ACME_10K.pdf p.9 chars 10-40\nNet income was $455 million.",
    offset: 0,
  };
  const cite = (page: number, text: string) => ({
    document: "ACME_10K.pdf",
    page,
    start: 0,
    end: text.length,
    text,
    row: 4,
    page_index: null,
    span: null,
    search_index: null,
  });
  const v = markCitations({
    pages: [read, search],
    citations: [cite(3, "$4,210 million"), cite(9, "Net income was $455 million.")],
    report: {},
    fields: [],
  });
  assert.deepEqual(
    v.citations.map((c) => [c.page_index, c.span, c.search_index]),
    [
      [0, [12, 26], null],
      [null, null, 1],
    ],
  );
  assert.deepEqual(
    (v.pages[0]!.marks ?? []).map((m) => [m.kind, read.text.slice(m.start, m.end)]),
    [["cite", "$4,210 million"]],
    "the page read keeps its cited mark",
  );
  assert.deepEqual(v.pages[1]!.marks, [], "search results carry no cited mark");
});

test("citations: a search that named the document is no read of its pages either", () => {
  const v = markCitations({
    pages: [{ row: 1, tool: "search", document: "ACME_10K.pdf", page: null, text: "p.9 Net income", offset: 0 }],
    citations: [{ document: "ACME_10K.pdf", page: 9, start: 0, end: 10, row: 2, page_index: null, span: null, search_index: null }],
    report: {},
    fields: [],
  });
  assert.equal(v.citations[0]!.page_index, null);
});

// The finance-aware page ranker on small made-up filings: the filing a question names ranks
// first, a synonym reaches the line item a statement prints under another name, statement
// pages are tagged, table rows are indexed as rows, phrases and numbers count.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { filingHints, filingMatch, filingOf } from "../../src/core/domains/document/retrieval/filing";
import { analyzeQuery } from "../../src/core/domains/document/retrieval/query";
import { PageRanker } from "../../src/core/domains/document/retrieval/ranker";
import { tableRows } from "../../src/core/domains/document/retrieval/rows";
import { tagStatements } from "../../src/core/domains/document/retrieval/statements";
import { compileVocabulary, FINANCE_VOCABULARY } from "../../src/core/domains/document/retrieval/vocabulary";
import type { ParsedDocument } from "../../src/core/domains/document/types";

const CASH_FLOW = `CONSOLIDATED STATEMENTS OF CASH FLOWS
(in millions)
Operating activities
Net income\t2,454\t1,464
Depreciation and amortization\t770\t683
Net cash provided by operating activities\t2,408\t2,141
Investing activities
Purchases of property, plant and equipment\t(819)\t(688)
Proceeds from sales of investments\t1,035\t2,098
Net cash used in investing activities\t(1,223)\t(318)
Financing activities
Dividends paid\t(409)\t(372)
Net cash used in financing activities\t(2,100)\t(1,500)`;

const BALANCE = `CONSOLIDATED BALANCE SHEETS
($ in millions)
Current assets
Cash and cash equivalents\t1,980\t1,101
Merchandise inventories\t5,409\t5,209
Total current assets\t8,870\t9,829
Total assets\t12,901\t13,049
Accounts payable\t5,257\t4,873
Total current liabilities\t7,513\t7,817
Total equity\t3,306\t3,612`;

const INCOME = `CONSOLIDATED STATEMENTS OF EARNINGS
(in millions, except per share amounts)
Revenue\t42,879\t39,403
Cost of sales\t32,918\t29,963
Gross profit\t9,961\t9,440
Operating income\t2,009\t1,843
Net earnings\t1,464\t1,000
Diluted earnings per share\t5.20\t3.26`;

// Prose pages that talk about the same subjects at length, as a filing's notes and MD&A do.
const PROSE_CAPITAL = `Liquidity and capital resources. Our capital expenditures are planned to support stores,
technology and supply chain. We expect capital expenditures in the range of $850 million to $900 million,
focused on technology investments. Capital expenditures discussed here exclude leases. Capital spending
priorities include remodels, and our capital plan may change.`;
const PROSE_INVENTORY = `Inventory management. We value merchandise at the lower of cost or net realizable value. Inventory
shrink, markdowns and vendor allowances affect the cost of inventory. Our inventory levels depend on demand.`;

function doc(name: string, pages: string[]): ParsedDocument {
  return { name, format: "text", bytes: 0, sha256: "", pages: pages.map((text, i) => ({ number: i + 1, text })) };
}

const filings = [
  doc("BESTBUY_2019_10K.txt", ["Best Buy Co., Inc. annual report", PROSE_CAPITAL, PROSE_INVENTORY, BALANCE, CASH_FLOW, INCOME]),
  doc("BESTBUY_2018_10K.txt", ["Best Buy Co., Inc. annual report", PROSE_CAPITAL, BALANCE, CASH_FLOW]),
  doc("JOHNSON_JOHNSON_2022Q4_EARNINGS.txt", ["Johnson & Johnson reports results", PROSE_CAPITAL, INCOME]),
  doc("ACME_2019_10K.txt", ["Acme Corp annual report", PROSE_CAPITAL, PROSE_INVENTORY, BALANCE, CASH_FLOW]),
];

describe("finance-aware page ranking", () => {
  const ranker = new PageRanker(filings);
  test("a capex question reaches the cash-flow row 'Purchases of property, plant and equipment' over prose about capital spending", () => {
    const top = ranker.search("What was Best Buy's FY2019 capex?", 3, 0)[0]!;
    assert.equal(top.page, 5);
    assert.match(CASH_FLOW.slice(top.row!.start, top.row!.end), /Purchases of property, plant and equipment/);
    assert.deepEqual(top.statements, ["cash_flow"]);
  });
  test("the filing the question names (company, year) ranks its own pages first across filings", () => {
    const hits = ranker.search("What is the year end FY2019 total amount of inventories for Best Buy? Answer in USD millions.", 5);
    assert.equal(filings[hits[0]!.doc]!.name, "BESTBUY_2019_10K.txt");
    assert.equal(hits[0]!.page, 4);
    const older = ranker.search("Best Buy FY2018 inventories", 3);
    assert.equal(filings[older[0]!.doc]!.name, "BESTBUY_2018_10K.txt");
    const jnj = ranker.search("What were JnJ's FY2022 revenues?", 3);
    assert.equal(filings[jnj[0]!.doc]!.name, "JOHNSON_JOHNSON_2022Q4_EARNINGS.txt");
  });
  test("revenue reaches a statement that prints 'Revenue' or 'net sales', and COGS reaches 'Cost of sales'", () => {
    const top = ranker.search("What is Best Buy's FY2019 COGS?", 1, 0)[0]!;
    assert.equal(top.page, 6);
    assert.match(INCOME.slice(top.row!.start, top.row!.end), /Cost of sales/);
  });
  test("a question naming the balance sheet prefers the balance sheet page", () => {
    const top = ranker.search("Based on the balance sheet, what were Acme's accounts payable?", 1)[0]!;
    assert.equal(filings[top.doc]!.name, "ACME_2019_10K.txt");
    assert.equal(top.page, 4);
  });
  test("the plain BM25 ranker puts the prose page first for the capex question (what the page ranker fixes)", () => {
    // Without synonyms, rows and statements, "capex" matches nothing and "capital expenditures" only prose.
    const bare = new PageRanker(filings, compileVocabulary({ query_stop_words: [], statements: emptyStatements(), concepts: [] }, "empty"));
    const top = bare.search("What was Best Buy's FY2019 capital expenditure?", 1, 0)[0]!;
    assert.equal(top.page, 2);
  });
});

function emptyStatements() {
  const none = { label: "x", titles: [], lines: [], mentions: [] };
  return { income: none, balance: none, cash_flow: none };
}

describe("parts of the ranker", () => {
  test("statement pages are tagged; prose and a table of contents are not", () => {
    assert.deepEqual(tagStatements(CASH_FLOW, FINANCE_VOCABULARY), ["cash_flow"]);
    assert.deepEqual(tagStatements(BALANCE, FINANCE_VOCABULARY), ["balance"]);
    assert.deepEqual(tagStatements(INCOME, FINANCE_VOCABULARY), ["income"]);
    assert.deepEqual(tagStatements(PROSE_CAPITAL, FINANCE_VOCABULARY), []);
    const toc =
      "Table of Contents\nIndex to financial statements\nConsolidated Balance Sheets\t52\nConsolidated Statements of Earnings\t53\nConsolidated Statements of Cash Flows\t55\nNotes\t56\nSignatures\t90";
    assert.deepEqual(tagStatements(toc, FINANCE_VOCABULARY), []);
  });
  test("table rows are lines with a label and figures, spans pointing into the page", () => {
    const rows = tableRows(BALANCE);
    assert.ok(
      rows.some((r) => r.label === "Merchandise inventories" && BALANCE.slice(r.start, r.end) === "Merchandise inventories\t5,409\t5,209"),
    );
    assert.ok(!rows.some((r) => r.label.startsWith("CONSOLIDATED")));
    assert.deepEqual(
      tableRows("Purchases of property and equipment\t(819)\t(688)\nSee the notes for details\n2019\t2018").map((r) => r.label),
      ["Purchases of property and equipment"],
    );
  });
  test("a query names concepts, their synonyms and statements, its phrases and numbers", () => {
    const q = analyzeQuery("What is Best Buy's FY2019 capital expenditure (in USD millions)?", FINANCE_VOCABULARY);
    assert.ok(q.synonyms.includes(" purchases of property plant and equipment "));
    assert.ok(q.expansion.includes("purchases"));
    assert.ok(q.statements.has("cash_flow"));
    assert.ok(q.numbers.includes("2019"));
    assert.ok(!q.terms.includes("usd") && !q.terms.includes("millions"));
    assert.ok(q.phrases.includes(" capital expenditure "));
  });
  test("file names give company, year, quarter and form; questions name them", () => {
    assert.deepEqual(filingOf("AMCOR_2023Q2_10Q.txt"), { company: ["amcor"], year: 2023, quarter: 2, form: "10q" });
    assert.deepEqual(filingOf("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"), { company: ["footlocker"], year: 2022, form: "8k" });
    const f = filingOf("MGMRESORTS_2022Q4_EARNINGS.txt");
    assert.ok(filingMatch(f, filingHints("Which region had the highest EBITDAR for MGM during FY2022?")) >= 1.5);
    assert.equal(filingMatch(f, filingHints("Which region had the highest EBITDAR during FY2022?")), 0);
    assert.ok(filingMatch(filingOf("COCACOLA_2021_10K.txt"), filingHints("What is Coca Cola's FY2021 COGS?")) > 1);
    assert.deepEqual(filingOf("3M_2018_10K.pdf"), { company: ["3m"], year: 2018, form: "10k" });
    assert.ok(filingMatch(filingOf("3M_2018_10K.pdf"), filingHints("What is 3M's FY2018 capital expenditure?")) >= 1.5);
    assert.ok(filingMatch(filingOf("PG&E_2022_10K.pdf"), filingHints("What was PG&E's FY2022 revenue?")) >= 1);
  });
  test("a vocabulary file with a wrong field is refused, naming the file and the field", () => {
    assert.throws(
      () => compileVocabulary({ query_stop_words: [], statements: emptyStatements(), concepts: [{ terms: "capex" }] }, "terms.json"),
      /terms\.json: concepts\.0\.terms/,
    );
  });
});

describe("on the shipped FinanceBench questions", () => {
  test("one search with the question puts an evidence page in the top 10 for ≥ 80 % within the filing and ≥ 60 % across all filings", async () => {
    const { buildCorpus } = await import("../../src/core/domains/document/corpus");
    const { readFileSync } = await import("node:fs");
    const path = await import("node:path");
    const env = path.join(__dirname, "..", "..", "environments", "document-financebench");
    const corpus = await buildCorpus(path.join(env, "documents"), 200);
    const tasks = readFileSync(path.join(env, "tasks.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { prompt: string; target: { evidence: Array<{ document: string; page: number }> } });
    let within = 0;
    let across = 0;
    for (const t of tasks) {
      const question = t.prompt.replace(/\n+The filing is [^\n]*$/, "");
      const doc = corpus.documents.findIndex((d) => d.name === t.target.evidence[0]!.document);
      const hit = (hits: Array<{ doc: number; page: number }>) =>
        hits.some((h) => t.target.evidence.some((e) => corpus.documents[h.doc]!.name === e.document && e.page === h.page));
      if (hit(corpus.ranker.search(question, 10, doc))) within++;
      if (hit(corpus.ranker.search(question, 10))) across++;
    }
    assert.ok(within / tasks.length >= 0.8, `within the filing: ${within}/${tasks.length}`);
    assert.ok(across / tasks.length >= 0.6, `across filings: ${across}/${tasks.length}`);
  });
});

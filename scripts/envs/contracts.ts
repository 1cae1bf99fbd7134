// Builds environments/document-contract-review: two versions of each synthetic contract
// (version 1 as paged text, version 2 as HTML with page breaks) and one review task per
// contract whose gold report lists the parties, the effective date, the money amounts of
// the revised version and every planted discrepancy.
// Run: npx tsx scripts/envs/contracts.ts
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CONTRACTS, type ContractSpec } from "./contracts-data";

const out = path.join(__dirname, "..", "..", "environments", "document-contract-review");
const SECTIONS_PER_PAGE = 4;

const VOCABULARY = [...new Set(CONTRACTS.flatMap((c) => [...c.clauses, ...(c.added ?? [])].map((k) => k.field)))].sort();

/** Section numbers in reading order: "2.10" after "2.9". */
function bySection(a: { number: string }, b: { number: string }): number {
  const pa = a.number.split(".").map(Number);
  const pb = b.number.split(".").map(Number);
  return pa[0]! - pb[0]! || (pa[1] ?? 0) - (pb[1] ?? 0);
}

export const REPORT_SCHEMA = {
  type: "object",
  properties: {
    parties: { type: "array", items: { type: "string" }, description: "Legal names of the parties" },
    effective_date: { type: "string", description: "The Effective Date, e.g. 2024-03-01" },
    amounts: { type: "array", items: { type: "string" }, description: 'Every money amount stated in the revised version, e.g. "$48,500"' },
    discrepancies: {
      type: "array",
      description: "Every clause whose value differs between version 1 and version 2",
      items: {
        type: "object",
        properties: {
          section: { type: "string", description: 'Section number, e.g. "3.1"' },
          field: { type: "string", enum: VOCABULARY },
          original: { type: "string", description: "The value in version 1" },
          revised: { type: "string", description: "The value in version 2" },
        },
        required: ["section", "field", "original", "revised"],
      },
    },
    citations: {
      type: "array",
      items: {
        type: "object",
        properties: { document: { type: "string" }, page: { type: "integer", minimum: 1 } },
        required: ["document", "page"],
      },
    },
  },
  required: ["parties", "effective_date", "amounts", "discrepancies"],
};

interface Section {
  number: string;
  heading: string;
  body: string;
}

function sections(c: ContractSpec, version: 1 | 2): Section[] {
  const present = version === 2 ? [...c.clauses, ...(c.added ?? [])] : c.clauses;
  const clauses = present
    .map((k) => ({
      number: k.section,
      heading: k.heading,
      body: k.text.replace("{v}", version === 2 ? (c.changes[k.section] ?? k.value) : k.value),
    }))
    .sort(bySection);
  const lastArticle = Math.max(...present.map((k) => Number(k.section.split(".")[0])));
  const boiler = c.boilerplate.map((b, i) => {
    const dot = b.indexOf(". ");
    return { number: `${lastArticle + 1}.${i + 1}`, heading: b.slice(0, dot), body: b.slice(dot + 2) };
  });
  return [...clauses, ...boiler];
}

function preamble(c: ContractSpec): string {
  return `This ${c.title} (the "Agreement") is entered into as of ${c.effective} (the "Effective Date") by and between ${c.parties[0]} ("${c.roles[0]}") and ${c.parties[1]} ("${c.roles[1]}"). In consideration of the mutual promises below, the parties agree as follows.`;
}

function signatures(c: ContractSpec): string {
  return `IN WITNESS WHEREOF, the parties have executed this Agreement as of the Effective Date.\n\n${c.parties[0]}\nBy: ______________________\n\n${c.parties[1]}\nBy: ______________________`;
}

function pagesOf<T>(items: T[]): T[][] {
  const pages: T[][] = [];
  for (let i = 0; i < items.length; i += SECTIONS_PER_PAGE) pages.push(items.slice(i, i + SECTIONS_PER_PAGE));
  return pages;
}

function renderText(c: ContractSpec): string {
  const pages = pagesOf(sections(c, 1)).map((page) => page.map((s) => `${s.number} ${s.heading}. ${s.body}`).join("\n\n"));
  pages[0] = `${c.title}\nVersion 1 (draft for review)\n\n${preamble(c)}\n\n${pages[0]}`;
  pages.push(signatures(c));
  return `${pages.join("\n\f")}\n`;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function renderHtml(c: ContractSpec): string {
  const pages = pagesOf(sections(c, 2)).map((page) =>
    page.map((s) => `<p><b>${esc(s.number)} ${esc(s.heading)}.</b> ${esc(s.body)}</p>`).join("\n"),
  );
  const body = pages.map(
    (p, i) =>
      `<div class="page"${i > 0 ? ' style="page-break-before: always"' : ""}>\n${i === 0 ? `<h1>${esc(c.title)}</h1>\n<p><i>Version 2 (revised)</i></p>\n<p>${esc(preamble(c))}</p>\n` : ""}${p}\n</div>`,
  );
  body.push(
    `<div class="page" style="page-break-before: always">\n${signatures(c)
      .split("\n\n")
      .map((b) => `<p>${esc(b).replace(/\n/g, "<br>")}</p>`)
      .join("\n")}\n</div>`,
  );
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${esc(c.title)}</title><style>.page{margin:2em}</style></head>\n<body>\n${body.join("\n")}\n</body></html>\n`;
}

/** Date as ISO: the form the report asks for. */
function iso(date: string): string {
  const d = new Date(`${date} UTC`);
  return d.toISOString().slice(0, 10);
}

export function goldReport(c: ContractSpec) {
  const revised = (k: { section: string; value: string }) => c.changes[k.section] ?? k.value;
  const changed = c.clauses
    .filter((k) => c.changes[k.section] !== undefined)
    .map((k) => ({ section: k.section, field: k.field, original: k.value, revised: revised(k) }));
  const added = (c.added ?? []).map((k) => ({ section: k.section, field: k.field, original: "none", revised: k.value }));
  return {
    parties: [...c.parties],
    effective_date: iso(c.effective),
    amounts: [...c.clauses, ...(c.added ?? [])].filter((k) => k.money).map(revised),
    discrepancies: [...changed, ...added],
  };
}

const MANIFEST = `# Generated by scripts/envs/contracts.ts: synthetic contracts with planted discrepancies.
name: document-contract-review
domain: document
description: >-
  Contract review: two versions of a commercial contract (a paged text draft and the
  revised HTML). The agent reports the parties, the effective date, every money amount of
  the revised version and every discrepancy between the versions, graded field by field
  with set F1.
version: "1"
tasks: tasks.jsonl
documents:
  path: documents
  chunk_tokens: 150
prompt:
  system: |
    You are a contracts lawyer reviewing a revised draft against the previous version.
    Read both versions in full; compare them clause by clause. Report values exactly as
    written in the contract. Finish with submit_report.
tools: [list_documents, search, read, find, submit_report]
max_turns: 30
reward:
  - type: fields
    name: report
    fields:
      parties: { comparator: entities }
      effective_date: { comparator: date }
      amounts: { comparator: entities }
      discrepancies: { comparator: entities, weight: 2 }
validation:
  oracle: { min: 1 }
  nop: { max: 0 }
`;

function main(): void {
  rmSync(out, { recursive: true, force: true });
  const tasks = [];
  for (const c of CONTRACTS) {
    const dir = path.join(out, "documents", c.slug);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "version-1.txt"), renderText(c));
    writeFileSync(path.join(dir, "version-2.html"), renderHtml(c));
    const gold = goldReport(c);
    tasks.push({
      id: `review-${c.slug}`,
      prompt: `Review ${c.slug}/version-2.html (revised) against ${c.slug}/version-1.txt (previous version) of the ${c.title.toLowerCase()} between ${c.parties[0]} and ${c.parties[1]}. Report the parties, the effective date, every money amount stated in the revised version, and every clause whose value changed (section, field, original value, revised value; a clause that only the revised version has gets original "none"). Field names: ${VOCABULARY.join(", ")}.`,
      target: { ...gold, schema: REPORT_SCHEMA, evidence: [{ document: `${c.slug}/version-1.txt`, page: 1 }] },
      solution: { answer: gold },
      metadata: { contract: c.title, discrepancies: gold.discrepancies.length },
    });
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  writeFileSync(path.join(out, "environment.yaml"), MANIFEST);
  console.log(`wrote ${tasks.length} contract review tasks to ${path.relative(path.join(__dirname, "..", ".."), out)}`);
}

if (require.main === module) main();

import type { Citation } from "../../../schema/trajectory";
import { defineTool } from "../../define-tool";
import { FINANCE_VOCABULARY } from "../retrieval/vocabulary";
import { queryTerms } from "../tokenize";
import {
  citationsArtifact,
  corpusOf,
  documentArgs,
  documentNamed,
  intArg,
  optionalDocumentArg,
  prepareCorpus,
  snippet,
  wordsArg,
} from "./context";

/** Characters either side of the first matching term when no table row matched. */
const WINDOW = 300;

export const searchTool = defineTool({
  name: "search",
  description:
    "Search all documents, or one, for pages that answer a question: a filing named in the query (company, year, form) ranks first; finance synonyms (capex = purchases of property, plant and equipment, revenue = net sales, …), table rows and financial statement pages (income statement, balance sheet, cash flow) count. Returns the best pages with document, page, character span and a snippet; read a page for the full text.",
  args: documentArgs({
    query: wordsArg("give 'query': the words to search for").describe(
      "A question or words to look for, e.g. 'Best Buy FY2019 inventories' or 'total revenue 2022'",
    ),
    document: optionalDocumentArg().describe("Only search this document"),
    k: intArg(1, 20).describe("How many pages (default 5)"),
  }),
  errors: "document",
  prepare: prepareCorpus,
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    const only = args.document !== undefined ? corpus.documents.indexOf(documentNamed(corpus, args.document)) : undefined;
    const hits = corpus.ranker.search(args.query, args.k ?? 5, only);
    if (hits.length === 0) return { output: `no passage matches ${JSON.stringify(args.query)}` };
    const terms = queryTerms(args.query);
    const citations: Citation[] = [];
    const lines = hits.map((h, i) => {
      const doc = corpus.documents[h.doc]!;
      const text = doc.pages.find((p) => p.number === h.page)?.text ?? "";
      const [start, end] = h.row ? [h.row.start, h.row.end] : around(text, firstTermAt(text, terms));
      const snip = snippet(text, start, end, 300);
      citations.push({ document: doc.name, page: h.page, start, end, text: snip });
      const kind = h.statements.length ? ` — ${h.statements.map((s) => FINANCE_VOCABULARY.statements[s].label).join(", ")}` : "";
      return `[${i + 1}] ${doc.name} p.${h.page} chars ${start}-${end}${kind} (score ${h.score.toFixed(2)})\n${snip}`;
    });
    return { output: lines.join("\n\n"), artifacts: citationsArtifact(citations) };
  },
});

function around(text: string, at: number): [number, number] {
  return [Math.max(0, at - WINDOW), Math.min(text.length, at + WINDOW)];
}

/** Where the first query term occurs in the page, to centre the snippet on it. */
function firstTermAt(text: string, terms: string[]): number {
  const body = text.toLowerCase();
  let best = -1;
  for (const t of terms) {
    const i = body.indexOf(t);
    if (i >= 0 && (best < 0 || i < best)) best = i;
  }
  return Math.max(0, best);
}

import type { Citation } from "../../../schema/trajectory";
import type { ToolDefinition } from "../../types";
import { queryTerms } from "../tokenize";
import { citationsArtifact, corpusOf, documentOr, intArg, isToolResult, snippet, toolError } from "./context";

export const searchTool: ToolDefinition = {
  name: "search",
  description:
    "Full-text search (BM25) over all documents, or one. Returns the best passages with document, page, character span and a snippet; read a page for the full text.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words to look for, e.g. 'total revenue 2022'" },
      document: { type: "string", description: "Only search this document" },
      k: { type: "integer", minimum: 1, maximum: 20, description: "How many passages (default 5)" },
    },
    required: ["query"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    if (typeof args.query !== "string" || !args.query.trim()) return toolError("give 'query': the words to search for");
    const k = intArg(args, "k", 5, 1, 20);
    if (typeof k === "string") return toolError(k);
    let only: number | undefined;
    if (args.document !== undefined) {
      const doc = documentOr(corpus, args.document);
      if (isToolResult(doc)) return doc;
      only = corpus.documents.indexOf(doc);
    }
    const terms = queryTerms(args.query);
    const hits = corpus.index.search(terms, k ?? 5, only === undefined ? undefined : (c) => corpus.chunks[c]?.doc === only);
    if (hits.length === 0) return { output: `no passage matches ${JSON.stringify(args.query)}` };
    const citations: Citation[] = [];
    const lines = hits.map((h, i) => {
      const c = corpus.chunks[h.chunk]!;
      const doc = corpus.documents[c.doc]!;
      const text = doc.pages.find((p) => p.number === c.page)?.text ?? "";
      const at = firstTermAt(text, c.start, c.end, terms);
      const snip = snippet(text, at, at, 300);
      citations.push({ document: doc.name, page: c.page, start: c.start, end: c.end, text: snip });
      return `[${i + 1}] ${doc.name} p.${c.page} chars ${c.start}-${c.end} (score ${h.score.toFixed(2)})\n${snip}`;
    });
    return { output: lines.join("\n\n"), artifacts: citationsArtifact(citations) };
  },
};

/** Where the first query term occurs inside the chunk, to centre the snippet on it. */
function firstTermAt(text: string, start: number, end: number, terms: string[]): number {
  const body = text.slice(start, end).toLowerCase();
  let best = -1;
  for (const t of terms) {
    const i = body.indexOf(t);
    if (i >= 0 && (best < 0 || i < best)) best = i;
  }
  return start + Math.max(0, best);
}

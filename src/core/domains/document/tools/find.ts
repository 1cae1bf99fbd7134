import type { Citation } from "../../../schema/trajectory";
import type { ToolDefinition } from "../../types";
import type { ParsedDocument } from "../types";
import { citationsArtifact, corpusOf, documentOr, intArg, isToolResult, snippet, toolError } from "./context";

const MAX_PATTERN = 300;
// A quantified group that itself holds a quantifier, e.g. (a+)+ or (\w*\s?)*: the shape of
// patterns that backtrack exponentially. The search runs in-process and cannot be interrupted.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

export const findTool: ToolDefinition = {
  name: "find",
  description:
    "Find a regular expression (JavaScript syntax) in one document or all; returns each match with document, page, character span and context.",
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "e.g. 'total (net )?revenue' or '\\\\$\\\\s?1,577'" },
      document: { type: "string" },
      ignore_case: { type: "boolean", description: "Default true" },
      max_matches: { type: "integer", minimum: 1, maximum: 100, description: "Default 20" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    if (typeof args.pattern !== "string" || !args.pattern) return toolError("give 'pattern': a regular expression");
    if (args.pattern.length > MAX_PATTERN) return toolError(`the pattern is longer than ${MAX_PATTERN} characters`);
    if (NESTED_QUANTIFIER.test(args.pattern))
      return toolError("the pattern repeats a group that itself repeats (like (a+)+), which can take exponential time; simplify it");
    const max = intArg(args, "max_matches", 20, 1, 100);
    if (typeof max === "string") return toolError(max);
    let re: RegExp;
    try {
      re = new RegExp(args.pattern, args.ignore_case === false ? "gu" : "giu");
    } catch (e) {
      return toolError(`invalid regular expression: ${(e as Error).message}`);
    }
    let docs: ParsedDocument[] = corpus.documents;
    if (args.document !== undefined) {
      const doc = documentOr(corpus, args.document);
      if (isToolResult(doc)) return doc;
      docs = [doc];
    }
    const limit = max ?? 20;
    const citations: Citation[] = [];
    const lines: string[] = [];
    let total = 0;
    for (const doc of docs) {
      for (const page of doc.pages) {
        for (const m of page.text.matchAll(re)) {
          if (m[0].length === 0) continue;
          total++;
          if (citations.length >= limit) continue;
          const end = m.index + m[0].length;
          citations.push({ document: doc.name, page: page.number, start: m.index, end, text: m[0] });
          lines.push(`${doc.name} p.${page.number} chars ${m.index}-${end}: ${snippet(page.text, m.index, end, 200)}`);
        }
      }
    }
    if (total === 0) return { output: `no match for /${args.pattern}/` };
    if (total > limit) lines.push(`[${total - limit} more matches not shown; narrow the pattern or give 'document']`);
    return { output: lines.join("\n"), artifacts: citationsArtifact(citations) };
  },
};

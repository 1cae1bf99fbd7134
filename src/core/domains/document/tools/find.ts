import type { Citation } from "../../../schema/trajectory";
import { z } from "zod";
import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import type { ParsedDocument } from "../types";
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

const MAX_PATTERN = 300;
// A quantified group that itself holds a quantifier, e.g. (a+)+ or (\w*\s?)*: the shape of
// patterns that backtrack exponentially. The search runs in-process and cannot be interrupted.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

export const findTool = defineTool({
  name: "find",
  description:
    "Find a regular expression (JavaScript syntax) in one document or all; returns each match with document, page, character span and context.",
  args: documentArgs({
    pattern: wordsArg("give 'pattern': a regular expression", { blankAllowed: true }).describe(
      "e.g. 'total (net )?revenue' or '\\\\$\\\\s?1,577'",
    ),
    document: optionalDocumentArg(),
    // Anything but false means ignore case, as before: a stray value is not worth an error.
    ignore_case: z.boolean().optional().catch(undefined).describe("Default true"),
    max_matches: intArg(1, 100).describe("Default 20"),
  }),
  errors: "document",
  prepare: prepareCorpus,
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    if (args.pattern.length > MAX_PATTERN) throw new ToolError(`the pattern is longer than ${MAX_PATTERN} characters`);
    if (NESTED_QUANTIFIER.test(args.pattern))
      throw new ToolError("the pattern repeats a group that itself repeats (like (a+)+), which can take exponential time; simplify it");
    let re: RegExp;
    try {
      re = new RegExp(args.pattern, args.ignore_case === false ? "gu" : "giu");
    } catch (e) {
      throw new ToolError(`invalid regular expression: ${(e as Error).message}`);
    }
    let docs: ParsedDocument[] = corpus.documents;
    if (args.document !== undefined) docs = [documentNamed(corpus, args.document)];
    const limit = args.max_matches ?? 20;
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
});

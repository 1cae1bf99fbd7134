import type { Citation } from "../../../schema/trajectory";
import type { ToolDefinition } from "../../types";
import { citationsArtifact, corpusOf, documentOr, intArg, isToolResult, toolError } from "./context";

/** Most characters one read returns: a long filing is read a page (or a range) at a time. */
export const READ_LIMIT = 8000;

export const readTool: ToolDefinition = {
  name: "read",
  description: `Read a document: one page (optionally a character range of it), or a character range of the whole document. At most ${READ_LIMIT} characters per call.`,
  parameters: {
    type: "object",
    properties: {
      document: { type: "string" },
      page: { type: "integer", minimum: 1, description: "1-based page number" },
      start: { type: "integer", minimum: 0, description: "First character (of the page when 'page' is given, else of the document)" },
      end: { type: "integer", minimum: 0, description: "One past the last character" },
    },
    required: ["document"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    const doc = documentOr(corpus, args.document);
    if (isToolResult(doc)) return doc;
    const page = intArg(args, "page", undefined, 1, doc.pages.length);
    if (typeof page === "string") return toolError(`${page} (${doc.name} has ${doc.pages.length} pages)`);
    const start = intArg(args, "start", 0, 0, Number.MAX_SAFE_INTEGER);
    if (typeof start === "string") return toolError(start);
    const endArg = intArg(args, "end", undefined, 0, Number.MAX_SAFE_INTEGER);
    if (typeof endArg === "string") return toolError(endArg);
    const from = start ?? 0;
    if (endArg !== undefined && endArg <= from) return toolError("'end' must be greater than 'start'");
    const to = Math.min(endArg ?? from + READ_LIMIT, from + READ_LIMIT);

    if (page !== undefined) {
      const text = doc.pages[page - 1]?.text ?? "";
      const end = Math.min(to, text.length);
      if (from >= text.length && text.length > 0)
        return toolError(`page ${page} has ${text.length} characters; 'start' ${from} is past its end`);
      const more = end < text.length ? `\n[… page continues: read with start=${end}]` : "";
      const citations: Citation[] = [{ document: doc.name, page, start: from, end }];
      return {
        output: `${doc.name} p.${page} of ${doc.pages.length} (chars ${from}-${end} of ${text.length})\n${text.slice(from, end)}${more}`,
        artifacts: citationsArtifact(citations),
      };
    }

    // A range of the whole document: pages laid end to end, each introduced by its number.
    const citations: Citation[] = [];
    const parts: string[] = [];
    let offset = 0;
    for (const p of doc.pages) {
      const pStart = offset;
      const pEnd = offset + p.text.length;
      offset = pEnd + 1;
      if (pEnd <= from || pStart >= to) continue;
      const s = Math.max(from, pStart) - pStart;
      const e = Math.min(to, pEnd) - pStart;
      parts.push(`--- page ${p.number} ---\n${p.text.slice(s, e)}`);
      citations.push({ document: doc.name, page: p.number, start: s, end: e });
    }
    const total = Math.max(0, offset - 1);
    if (parts.length === 0) return toolError(`${doc.name} has ${total} characters; 'start' ${from} is past its end`);
    const more = to < total ? `\n[… continues: read with start=${to}]` : "";
    return {
      output: `${doc.name} chars ${from}-${Math.min(to, total)} of ${total}\n${parts.join("\n")}${more}`,
      artifacts: citationsArtifact(citations),
    };
  },
};

import type { Citation } from "../../../schema/trajectory";
import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import {
  checkedInRun,
  citationsArtifact,
  corpusOf,
  documentArg,
  documentArgs,
  documentNamed,
  intArg,
  intWithin,
  prepareCorpus,
} from "./context";

/** Most characters one read returns: a long filing is read a page (or a range) at a time. */
export const READ_LIMIT = 8000;

export const readTool = defineTool({
  name: "read",
  description: `Read a document: one page (optionally a character range of it), or a character range of the whole document. At most ${READ_LIMIT} characters per call.`,
  args: documentArgs({
    document: documentArg(),
    // Checked against the document's page count, which the message names.
    page: checkedInRun({ type: "integer", minimum: 1, description: "1-based page number" }),
    start: intArg(0, Number.MAX_SAFE_INTEGER).describe("First character (of the page when 'page' is given, else of the document)"),
    end: intArg(0, Number.MAX_SAFE_INTEGER).describe("One past the last character"),
  }),
  errors: "document",
  prepare: prepareCorpus,
  async run(args, ctx) {
    const corpus = await corpusOf(ctx);
    const doc = documentNamed(corpus, args.document);
    const page = intWithin(args.page, "page", 1, doc.pages.length, ` (${doc.name} has ${doc.pages.length} pages)`);
    const from = args.start ?? 0;
    const endArg = args.end;
    if (endArg !== undefined && endArg <= from) throw new ToolError("'end' must be greater than 'start'");
    const to = Math.min(endArg ?? from + READ_LIMIT, from + READ_LIMIT);

    if (page !== undefined) {
      const text = doc.pages[page - 1]?.text ?? "";
      const end = Math.min(to, text.length);
      if (from >= text.length && text.length > 0)
        throw new ToolError(`page ${page} has ${text.length} characters; 'start' ${from} is past its end`);
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
    if (parts.length === 0) throw new ToolError(`${doc.name} has ${total} characters; 'start' ${from} is past its end`);
    const more = to < total ? `\n[… continues: read with start=${to}]` : "";
    return {
      output: `${doc.name} chars ${from}-${Math.min(to, total)} of ${total}\n${parts.join("\n")}${more}`,
      artifacts: citationsArtifact(citations),
    };
  },
});

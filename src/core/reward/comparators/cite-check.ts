import { getPath } from "../answer-path";
import { checkCitations } from "./citation";
import type { Comparator } from "./registry";

/**
 * Adds the citation check to a comparator: with `cite: true` a correct value also needs a
 * cited page (`citations: [{document, page}]` beside it in the answer) that states it.
 */
export function withCitationCheck(inner: Comparator): Comparator {
  return async (actual, expected, spec, ctx) => {
    const r = await inner(actual, expected, spec, ctx);
    if (!spec.cite || !(r.passed ?? r.score >= 1)) return r;
    const dir = ctx.env.paths.documents;
    if (!dir) throw new Error("cite: the environment has no documents folder to check citations against");
    // Loaded lazily: only environments with documents pay for the PDF reader.
    const { loadCorpus, pageText } = await import("../../domains/document/corpus");
    const corpus = await loadCorpus(dir, ctx.env.manifest.documents?.chunk_tokens ?? 200);
    const parent = ctx.field.includes(".") ? getPath(ctx.answer, ctx.field.split(".").slice(0, -1).join(".")) : ctx.answer;
    const citations = getPath(parent, "citations") ?? getPath(ctx.answer, "citations");
    const lookup = (doc: string, page: number) => pageText(corpus, doc, page);
    const byValue = checkCitations(actual, citations, lookup);
    const c = byValue.passed ? byValue : checkCitations(expected, citations, lookup);
    if (c.passed) return { ...r, reason: `${r.reason ?? "value matches"}; ${c.reason}` };
    return {
      score: 0,
      passed: false,
      reason: `${r.reason ?? "value matches"} but the citation check failed: ${c.reason}`,
      details: r.details,
    };
  };
}

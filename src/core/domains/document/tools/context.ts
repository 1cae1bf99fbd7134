import type { Artifacts, Citation } from "../../../schema/trajectory";
import { didYouMean } from "../../../environment/suggest";
import type { ToolContext, ToolResult } from "../../types";
import { type Corpus, findDocument, loadCorpus } from "../corpus";
import { DEFAULT_CHUNK_TOKENS } from "../prepare";
import type { ParsedDocument } from "../types";

const STATE_KEY = "document.corpus";

/** The environment's corpus, from the rollout state or built (once per process) on first use. */
export async function corpusOf(ctx: Pick<ToolContext, "env" | "state">): Promise<Corpus> {
  const held = ctx.state.get(STATE_KEY) as Corpus | undefined;
  if (held) return held;
  const dir = ctx.env.paths.documents;
  if (!dir) throw new Error(`${ctx.env.manifestPath}: the document domain needs 'documents: {path}' in the manifest`);
  const corpus = await loadCorpus(dir, ctx.env.manifest.documents?.chunk_tokens ?? DEFAULT_CHUNK_TOKENS);
  ctx.state.set(STATE_KEY, corpus);
  return corpus;
}

/** A tool error the agent can act on. */
export function toolError(message: string): ToolResult {
  return { output: message, error: message, status: "error", exitCode: 1 };
}

/** Resolve a document name or say which names exist. */
export function documentOr(corpus: Corpus, name: unknown): ParsedDocument | ToolResult {
  if (typeof name !== "string" || !name) return toolError("give 'document': a name from list_documents");
  const doc = findDocument(corpus, name);
  if (doc) return doc;
  const names = corpus.documents.map((d) => d.name);
  const hint = didYouMean(name, names);
  return toolError(`no document '${name}'${hint ? `; did you mean '${hint}'?` : ""} (list_documents shows the ${names.length} documents)`);
}

export function isToolResult(x: ParsedDocument | ToolResult): x is ToolResult {
  return "output" in x;
}

/** An integer argument within bounds, the default when absent; an error message when invalid. */
export function intArg(
  args: Record<string, unknown>,
  key: string,
  dflt: number | undefined,
  min: number,
  max: number,
): number | undefined | string {
  const v = args[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "number" || !Number.isInteger(v)) return `'${key}' must be an integer`;
  if (v < min || v > max) return `'${key}' must be between ${min} and ${max}`;
  return v;
}

export function citationsArtifact(citations: Citation[]): Artifacts | undefined {
  return citations.length ? { citations } : undefined;
}

/** One line of context around a span, new lines shown as spaces. */
export function snippet(text: string, start: number, end: number, width = 240): string {
  const pad = Math.max(0, Math.floor((width - (end - start)) / 2));
  const from = Math.max(0, start - pad);
  const to = Math.min(text.length, end + pad);
  return `${from > 0 ? "…" : ""}${text.slice(from, to).replace(/\s+/g, " ").trim()}${to < text.length ? "…" : ""}`;
}

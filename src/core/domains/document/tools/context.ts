import { z } from "zod";
import type { Artifacts, Citation } from "../../../schema/trajectory";
import { didYouMean } from "../../../environment/suggest";
import { ToolError } from "../../../model/errors";
import type { ToolContext } from "../../../model/domain";
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

/** The document of that name, or a ToolError that says which names exist. */
export function documentNamed(corpus: Corpus, name: string): ParsedDocument {
  const doc = findDocument(corpus, name);
  if (doc) return doc;
  const names = corpus.documents.map((d) => d.name);
  const hint = didYouMean(name, names);
  throw new ToolError(
    `no document '${name}'${hint ? `; did you mean '${hint}'?` : ""} (list_documents shows the ${names.length} documents)`,
  );
}

/** The corpus is read before any argument, so a corpus that cannot be read is the error a call reports first. */
export async function prepareCorpus(ctx: ToolContext): Promise<void> {
  await corpusOf(ctx);
}

const nullAsAbsent = (v: unknown) => (v === null ? undefined : v);
const NAME_DOCUMENT = "give 'document': a name from list_documents";

/** A document name (required). */
export function documentArg() {
  return z.string({ error: NAME_DOCUMENT }).refine((v) => v !== "", { error: NAME_DOCUMENT });
}

/** A document name, optional; a null is refused like any other non-name. */
export function optionalDocumentArg() {
  return documentArg().optional();
}

/** A string that must hold more than white space; `message` says what to give. */
export function wordsArg(message: string, opts: { blankAllowed?: boolean } = {}) {
  return z.string({ error: message }).refine((v) => (opts.blankAllowed ? v !== "" : v.trim() !== ""), { error: message });
}

/** An optional integer within bounds (null counts as absent). */
export function intArg(min: number, max: number) {
  const name = (iss: { path?: PropertyKey[] }) => String(iss.path?.at(-1));
  const between = (iss: { path?: PropertyKey[] }) => `'${name(iss)}' must be between ${min} and ${max}`;
  const n = z
    .int({ error: (iss) => (iss.code === "too_big" || iss.code === "too_small" ? between(iss) : `'${name(iss)}' must be an integer`) })
    .min(min, { error: between })
    .max(max, { error: between });
  return z.preprocess(nullAsAbsent, n.optional());
}

/**
 * An integer argument checked in the tool, where its bounds are known (a page number
 * against the document's pages); the model is shown `shown`.
 */
export function checkedInRun(shown: Record<string, unknown>) {
  return z.unknown().optional().meta(shown);
}

/** An integer within bounds, the default when absent; a ToolError when invalid. */
export function intWithin(value: unknown, key: string, min: number, max: number, context = ""): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) throw new ToolError(`'${key}' must be an integer${context}`);
  if (value < min || value > max) throw new ToolError(`'${key}' must be between ${min} and ${max}${context}`);
  return value;
}

/**
 * The arguments object. The model is told no other key is allowed, but one it adds anyway
 * is ignored rather than refused, as the tools always did.
 */
export function documentArgs<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.object(shape).meta({ additionalProperties: false });
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

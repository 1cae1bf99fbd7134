import type { Environment } from "../../model/environment";
import { type Corpus, type CorpusProgress, loadCorpus } from "./corpus";

/** Default chunk size when the manifest names none. */
export const DEFAULT_CHUNK_TOKENS = 200;

/** One line about indexing progress: "documents: 12/40 parsed (3 from the cache) — ADOBE_2022_10K.pdf". */
export function describeProgress(p: CorpusProgress): string {
  const cached = p.cached ? `, ${p.cached} from the cache` : "";
  if (p.toParse === 0) return `documents: ${p.cached} from the cache`;
  return `documents: ${p.parsed}/${p.toParse} parsed${cached}${p.file ? ` — ${p.file}` : ""}`;
}

/**
 * Parse (in worker threads, cached by content hash) and index an environment's documents
 * once, reporting progress through `log`; later calls in this process get the same corpus.
 */
export async function prepareDocuments(env: Environment, log: (message: string) => void = () => {}): Promise<Corpus | undefined> {
  const dir = env.paths.documents;
  if (!dir) return undefined;
  const t0 = performance.now();
  const corpus = await loadCorpus(dir, env.manifest.documents?.chunk_tokens ?? DEFAULT_CHUNK_TOKENS, {
    onProgress: (p) => {
      if (p.toParse > 0 && (p.parsed > 0 || p.cached > 0)) log(describeProgress(p));
      else if (p.toParse > 0)
        log(`documents: parsing ${p.toParse} file${p.toParse === 1 ? "" : "s"}${p.cached ? ` (${p.cached} in the cache)` : ""}`);
    },
  });
  const pages = corpus.documents.reduce((s, d) => s + d.pages.length, 0);
  const unreadable = corpus.problems.length
    ? `; ${corpus.problems.length} unreadable: ${corpus.problems.map((p) => p.message).join("; ")}`
    : "";
  const how = corpus.fromIndex ? "loaded from the saved index" : `${corpus.parsed} parsed now`;
  log(
    `documents: ${corpus.documents.length} indexed (${pages} pages, ${how}) in ${((performance.now() - t0) / 1000).toFixed(1)} s${unreadable}`,
  );
  return corpus;
}

/**
 * Encoding for byte-level BPE tokenizers of the Qwen / GPT-4 shape (added tokens, an NFC or no
 * normalizer, a regex Split then a ByteLevel step, BPE), giving what @huggingface/tokenizers'
 * `encode(text, { add_special_tokens: false }).ids` gives, with the library's own parts (its added-token
 * splitters, normalizer, split pattern, byte table and merges) but a cache from each piece of text to its
 * ids: a word seen before costs one Map lookup, where the library spelled it in bytes, looked it up in
 * its merge cache and mapped each token to its id again, with arrays and closures per word. A tokenizer
 * of any other shape gets undefined, and its callers use the library.
 */
import { byteSpeller } from "./byte-level-encode";

interface AddedToken {
  id: number;
  lstrip?: boolean;
  rstrip?: boolean;
}

interface LibraryTokenizer {
  model: {
    bpe?: (word: string) => string[];
    tokens_to_ids: Map<string, number>;
    ignore_merges?: boolean;
    byte_fallback?: boolean;
    end_of_word_suffix?: string | null;
    continuing_subword_suffix?: string | null;
    fuse_unk?: boolean;
  };
  added_tokens_map: Map<string, AddedToken>;
  splitter_unnormalized: { split(text: string): string[] };
  splitter_normalized: { split(text: string): string[] };
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: { tokenizers?: Array<{ pattern?: unknown; byte_encoder?: Record<number, string> }> } | null;
  remove_space?: boolean;
  do_lowercase_and_remove_accent?: boolean;
}

interface TokenizerJson {
  normalizer?: { type?: string } | null;
  pre_tokenizer?: { type?: string; pretokenizers?: Array<Record<string, unknown>> } | null;
  post_processor?: { type?: string } | null;
}

/** The library's parts the fast encoder uses, once the tokenizer's shape is known to be the supported one. */
interface FastParts {
  model: LibraryTokenizer["model"];
  bpe: (word: string) => string[];
  pattern: RegExp;
  spell: NonNullable<ReturnType<typeof byteSpeller>>;
  normalize: ((text: string) => string) | null;
  added: Map<string, AddedToken>;
  splitters: { raw: { split(text: string): string[] }; normalized: { split(text: string): string[] } };
}

/** Whether the pre-tokenizer is Split (isolated, not inverted) on a regex, then ByteLevel without its own regex or prefix space. */
function supportedPreTokenizer(j: TokenizerJson): boolean {
  const steps = j.pre_tokenizer?.type === "Sequence" ? j.pre_tokenizer.pretokenizers : undefined;
  const [split, byteLevel] = steps ?? [];
  if (steps?.length !== 2 || split?.type !== "Split" || byteLevel?.type !== "ByteLevel") return false;
  if (split.invert !== false || split.behavior !== "Isolated" || !(split.pattern as { Regex?: string } | undefined)?.Regex) return false;
  return byteLevel.use_regex === false && byteLevel.add_prefix_space === false;
}

/** The library's parts of a tokenizer of the supported shape; undefined for any other. */
function fastParts(tokenizer: unknown, json: unknown): FastParts | undefined {
  const t = tokenizer as Partial<LibraryTokenizer> | null;
  const j = json as TokenizerJson | null;
  if (!t || !j || !t.model || !t.added_tokens_map || !t.splitter_unnormalized || !t.splitter_normalized) return undefined;
  const model = t.model;
  const bpe = model.bpe;
  if (typeof bpe !== "function" || !(model.tokens_to_ids instanceof Map)) return undefined;
  if (model.ignore_merges || model.byte_fallback || model.end_of_word_suffix || model.continuing_subword_suffix || model.fuse_unk)
    return undefined;
  if (t.remove_space || t.do_lowercase_and_remove_accent) return undefined;
  for (const a of t.added_tokens_map.values()) if (a.lstrip || a.rstrip) return undefined;
  const normType = j.normalizer?.type;
  if (j.normalizer && normType !== "NFC") return undefined;
  if (j.post_processor && j.post_processor.type !== "ByteLevel") return undefined;
  if (!supportedPreTokenizer(j)) return undefined;
  const [splitStep, byteStep] = t.pre_tokenizer?.tokenizers ?? [];
  const pattern = splitStep?.pattern;
  const byteEncoder = byteStep?.byte_encoder;
  if (!(pattern instanceof RegExp) || !pattern.global || !byteEncoder) return undefined;
  const spell = byteSpeller(byteEncoder);
  if (!spell) return undefined;
  const normalize = t.normalizer ?? null;
  if (normType === "NFC" && typeof normalize !== "function") return undefined;
  const splitters = { raw: t.splitter_unnormalized, normalized: t.splitter_normalized };
  return { model, bpe, pattern, spell, normalize, added: t.added_tokens_map, splitters };
}

/** A piece's ids, cached; undefined when one of its tokens is in no vocabulary (the library's unknown-token path). */
function pieceIds({ model, bpe, spell, added }: FastParts, capacity: number): (text: string) => readonly number[] | undefined {
  const pieces = new Map<string, readonly number[]>();
  return (text) => {
    const known = pieces.get(text);
    if (known) return known;
    const ids: number[] = [];
    for (const token of bpe.call(model, spell(text))) {
      // As the library: BPE keeps a token its vocabulary has, and the id comes from the added tokens first.
      if (!model.tokens_to_ids.has(token)) return undefined;
      ids.push(added.get(token)?.id ?? (model.tokens_to_ids.get(token) as number));
    }
    if (pieces.size >= capacity) pieces.clear();
    pieces.set(text, ids);
    return ids;
  };
}

/** Text with no added token in it: split on the pattern (the gaps between matches too), each piece through BPE. */
function wordsEncoder(pattern: RegExp, piece: (text: string) => readonly number[] | undefined) {
  const push = (text: string, out: number[]): boolean => {
    const ids = piece(text);
    if (!ids) return false;
    for (const id of ids) out.push(id);
    return true;
  };
  return (text: string, out: number[]): boolean => {
    let prev = 0;
    for (const m of text.matchAll(pattern)) {
      const at = m.index;
      if (prev < at && !push(text.slice(prev, at), out)) return false;
      const word = m[0];
      if (word.length > 0 && !push(word, out)) return false;
      prev = at + word.length;
    }
    return prev >= text.length || push(text.slice(prev), out);
  };
}

/** The fast encoder for a loaded tokenizer and its tokenizer.json, or undefined when its shape is another. */
export function fastEncoder(tokenizer: unknown, json: unknown, capacity = 50_000): ((text: string) => number[]) | undefined {
  const parts = fastParts(tokenizer, json);
  if (!parts) return undefined;
  const { added, normalize, splitters } = parts;
  const words = wordsEncoder(parts.pattern, pieceIds(parts, capacity));
  return (text: string): number[] => {
    const out: number[] = [];
    for (const section of splitters.raw.split(text)) {
      if (section.length === 0) continue;
      const a = added.get(section);
      if (a) {
        out.push(a.id);
        continue;
      }
      const normalized = normalize ? normalize(section) : section;
      if (normalized.length === 0) continue;
      for (const sub of splitters.normalized.split(normalized)) {
        if (sub.length === 0) continue;
        const b = added.get(sub);
        if (b) out.push(b.id);
        else if (!words(sub, out)) throw new UnknownPiece();
      }
    }
    return out;
  };
}

/** A piece with a token in no vocabulary: the caller encodes the text with the library, which knows what to do. */
export class UnknownPiece extends Error {}

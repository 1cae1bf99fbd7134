/**
 * A faster byte-level pre-tokenizer step for @huggingface/tokenizers (GPT-2 style: Qwen, Llama 3,
 * Mistral's newer models). The library maps each pre-token to its byte-level spelling with a
 * TextEncoder call, an Array.from and a join per word, which was half of encoding a turn's new
 * messages. This does the same mapping with a table, reading ASCII straight from the string and
 * going through UTF-8 bytes only for a word that needs them. Same output: UTF-8 as TextEncoder gives
 * it (Buffer writes a lone surrogate as U+FFFD too), the same regex split, the same prefix space.
 */
interface ByteLevelStep {
  byte_encoder: Record<number, string>;
  text_encoder: unknown;
  add_prefix_space: boolean;
  use_regex: boolean;
  pattern: RegExp;
  pre_tokenize_text: (text: string, options?: unknown) => string[];
}

const isByteLevel = (x: unknown): x is ByteLevelStep => {
  const o = x as Partial<ByteLevelStep> | null;
  return (
    !!o &&
    typeof o.byte_encoder === "object" &&
    o.text_encoder !== undefined &&
    typeof o.pre_tokenize_text === "function" &&
    typeof o.add_prefix_space === "boolean" &&
    typeof o.use_regex === "boolean" &&
    o.pattern instanceof RegExp
  );
};

/**
 * A word's byte-level spelling through the step's byte → character table: ASCII read straight
 * from the string, anything else through its UTF-8 bytes. Undefined when the table lacks a byte.
 */
export function byteSpeller(byteEncoder: Record<number, string>): ((word: string) => string) | undefined {
  const table = Array.from({ length: 256 }, (_, b) => byteEncoder[b]);
  if (table.some((t) => typeof t !== "string")) return undefined;
  return (word: string): string => {
    let out = "";
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      if (c >= 0x80) {
        out = "";
        for (const b of Buffer.from(word, "utf8")) out += table[b] as string;
        return out;
      }
      out += table[c] as string;
    }
    return out;
  };
}

/** Replaces the byte-level steps of a loaded tokenizer's pre-tokenizer (nested in sequences too); returns how many. */
export function speedUpByteLevel(tokenizer: unknown): number {
  let n = 0;
  const visit = (step: unknown, depth: number): void => {
    if (!step || depth > 8) return;
    const seq = (step as { tokenizers?: unknown }).tokenizers;
    if (Array.isArray(seq)) for (const s of seq) visit(s, depth + 1);
    if (!isByteLevel(step)) return;
    const spell = byteSpeller(step.byte_encoder);
    if (!spell) return;
    step.pre_tokenize_text = (text: string): string[] => {
      const t = step.add_prefix_space && !text.startsWith(" ") ? ` ${text}` : text;
      const words = step.use_regex ? (t.match(step.pattern) ?? []) : [t];
      return words.map(spell);
    };
    n++;
  };
  visit((tokenizer as { pre_tokenizer?: unknown }).pre_tokenizer, 0);
  return n;
}

interface WordCache {
  get(word: string): string[] | undefined;
  put(word: string, pieces: string[]): void;
  clear(): void;
}

/**
 * Replaces a BPE model's word cache (an LRU that deletes and re-inserts the word on every hit: four
 * Map operations per word of every text) with a plain Map that is emptied when full. The cache only
 * saves work: the ids are the same. Returns whether the model had such a cache.
 */
export function plainBpeCache(tokenizer: unknown, capacity = 50_000): boolean {
  const model = (tokenizer as { model?: { cache?: Partial<WordCache>; bpe?: unknown } } | null)?.model;
  const old = model?.cache;
  if (!model || typeof model.bpe !== "function" || typeof old?.get !== "function" || typeof old.put !== "function") return false;
  const words = new Map<string, string[]>();
  const cache: WordCache = {
    get: (word) => words.get(word),
    put: (word, pieces) => {
      if (words.size >= capacity) words.clear();
      words.set(word, pieces);
    },
    clear: () => words.clear(),
  };
  model.cache = cache;
  return true;
}

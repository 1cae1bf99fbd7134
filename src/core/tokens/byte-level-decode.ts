/**
 * Decoding for byte-level BPE tokenizers (GPT-2's scheme, used by Qwen, Llama 3 and most others):
 * each vocabulary entry spells bytes with one printable character per byte, so an id's bytes can be
 * worked out once and a turn decoded by copying bytes. It gives what @huggingface/tokenizers'
 * `decode(ids, { skip_special_tokens: false })` gives (a test holds it to that over a whole
 * vocabulary), at a fraction of the cost: the library maps every character of every token through a
 * table again on each call, which was the largest share of a token-in/token-out turn's own work.
 * Added tokens (`<|im_end|>`, `<tool_call>`) are their text, and split the byte runs: bytes either
 * side decode apart, as the library does.
 */
export class ByteLevelDecoder {
  /** Each id's bytes (a string for added tokens), worked out on first use; dense once the vocabulary is read. */
  private bytes: Array<Uint8Array | string | undefined> = [];
  /**
   * Each id's text where its bytes are whole characters (most are: words, spaces, punctuation), null where
   * they are part of one. Such a token's text joins the rest as it is: it starts on a character boundary,
   * so it also ends whatever incomplete character came before it, as decoding the bytes together would.
   */
  private whole: Array<string | null | undefined> = [];
  private readonly utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  private readonly strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  /** id → vocabulary entry, built on the first decode (a run that never decodes pays nothing). */
  private tokens: string[] | undefined;

  private constructor(
    private readonly vocab: Record<string, number>,
    private readonly added: ReadonlyMap<number, string>,
  ) {}

  /**
   * The decoder for a tokenizer.json, or undefined when its decoding is not plain byte-level BPE
   * (another decoder, or a config that cleans up spaces after decoding): callers then use the library.
   */
  static fromTokenizerJson(json: unknown, cleanUpSpaces: boolean | undefined): ByteLevelDecoder | undefined {
    const t = json as {
      decoder?: { type?: string } | null;
      model?: { type?: string; vocab?: Record<string, number>; byte_fallback?: boolean };
      added_tokens?: Array<{ id: number; content: string }>;
    };
    // The library's default for clean_up_tokenization_spaces is true.
    if (cleanUpSpaces !== false || t.decoder?.type !== "ByteLevel" || t.model?.type !== "BPE" || !t.model.vocab) return undefined;
    return new ByteLevelDecoder(t.model.vocab, new Map((t.added_tokens ?? []).map((a) => [a.id, a.content])));
  }

  /** The text of `ids`; undefined when one of them is not in the vocabulary (the caller asks the library). */
  decode(ids: readonly number[]): string | undefined {
    let out = "";
    let run = new Uint8Array(256);
    let len = 0;
    for (const id of ids) {
      const b = this.bytes[id] ?? this.learn(id);
      if (b === undefined) return undefined;
      if (typeof b === "string") {
        if (len > 0) out += this.utf8.decode(run.subarray(0, len));
        len = 0;
        out += b;
        continue;
      }
      const text = this.whole[id];
      if (typeof text === "string") {
        if (len > 0) out += this.utf8.decode(run.subarray(0, len));
        len = 0;
        out += text;
        continue;
      }
      if (len + b.length > run.length) {
        const bigger = new Uint8Array(Math.max(run.length * 2, len + b.length));
        bigger.set(run.subarray(0, len));
        run = bigger;
      }
      run.set(b, len);
      len += b.length;
    }
    if (len > 0) out += this.utf8.decode(run.subarray(0, len));
    return out;
  }

  private learn(id: number): Uint8Array | string | undefined {
    if (!Number.isInteger(id) || id < 0) return undefined;
    const added = this.added.get(id);
    if (added !== undefined) {
      this.bytes[id] = added;
      return added;
    }
    if (!this.tokens) {
      const tokens: string[] = [];
      for (const token in this.vocab) tokens[this.vocab[token] as number] = token;
      this.tokens = tokens;
      // Dense tables (a sparse array is a hash table in V8), keeping what was learnt before.
      const size = Math.max(tokens.length, ...this.added.keys()) + 1;
      const bytes = Array.from({ length: size }, (_, i) => this.bytes[i]);
      this.bytes = bytes;
      this.whole = Array.from({ length: size }, (_, i) => this.whole[i]);
    }
    const token = this.tokens[id];
    if (token === undefined) return undefined;
    const b = new Uint8Array(token.length);
    let n = 0;
    for (const ch of token) {
      const byte = UNICODE_TO_BYTE.get(ch);
      // A character outside the byte alphabet: not a byte-level entry after all; leave it to the library.
      if (byte === undefined) return undefined;
      b[n++] = byte;
    }
    const bytes = b.subarray(0, n);
    this.bytes[id] = bytes;
    let text: string | null = null;
    try {
      text = this.strictUtf8.decode(bytes);
    } catch {
      // Part of a character: decoded with the bytes around it.
    }
    this.whole[id] = text;
    return bytes;
  }
}

/** GPT-2's bytes_to_unicode, reversed: printable bytes stand for themselves, the rest for 256 + n. */
const UNICODE_TO_BYTE: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let extra = 0;
  for (let b = 0; b < 256; b++) map.set(String.fromCharCode(printable(b) ? b : 256 + extra++), b);
  return map;
})();

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Tokenizer } from "@huggingface/tokenizers";
import { ByteLevelDecoder } from "../../src/core/tokens/byte-level-decode";
import { ChatTokenizer } from "../../src/core/tokens/chat-template";
import { QWEN3_DIR, qwenEncode } from "../support/qwen-tokens";

const json = JSON.parse(readFileSync(path.join(QWEN3_DIR, "tokenizer.json"), "utf8")) as { model: { vocab: Record<string, number> } };
const config = JSON.parse(readFileSync(path.join(QWEN3_DIR, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
const library = new Tokenizer(json as ConstructorParameters<typeof Tokenizer>[0], config);
const fast = ByteLevelDecoder.fromTokenizerJson(json, false)!;
const slow = (ids: number[]) => library.decode(ids, { skip_special_tokens: false });

test("byte-level decode: every id of Qwen3's vocabulary, alone and in runs, gives the library's text", () => {
  const size = 151_669;
  for (let id = 0; id < size; id++) assert.equal(fast.decode([id]), slow([id]), `id ${id}`);
  // Runs of consecutive ids join multi-byte characters across tokens, as sampled text does.
  for (let at = 0; at < size; at += 97) {
    const ids = Array.from({ length: 97 }, (_, i) => (at + i * 7919) % size);
    assert.equal(fast.decode(ids), slow(ids), `run at ${at}`);
  }
});

test("byte-level decode: real text, a character cut by an added token, and ids outside the vocabulary", () => {
  const text = `${readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8")} 中文 ünïcödé 🙂<tool_call>\n{"a": 1}\n</tool_call><|im_end|>`;
  const ids = qwenEncode(text);
  assert.equal(fast.decode(ids), slow(ids));
  assert.equal(fast.decode(ids), text);
  // "𓀀" is four bytes over three tokens; an added token between them leaves both halves undecodable, as in the library.
  const smile = qwenEncode("𓀀");
  assert.ok(smile.length > 1);
  const cut = [...smile.slice(0, 1), qwenEncode("<|im_end|>")[0]!, ...smile.slice(1)];
  assert.equal(fast.decode(cut), slow(cut));
  assert.equal(fast.decode([1, 999_999]), undefined);
  assert.equal(fast.decode([]), "");
});

test("byte-level decode is used only where it is exact: not when the config cleans up spaces, not for other decoders", () => {
  assert.equal(ByteLevelDecoder.fromTokenizerJson(json, true), undefined);
  assert.equal(ByteLevelDecoder.fromTokenizerJson(json, undefined), undefined, "the library's default is to clean up");
  assert.equal(ByteLevelDecoder.fromTokenizerJson({ ...json, decoder: { type: "Metaspace" } }, false), undefined);
  const chat = new ChatTokenizer(QWEN3_DIR);
  const ids = qwenEncode("<think>\nok</think>\n\nHello, wörld.<|im_end|>");
  assert.equal(chat.decode(ids), slow(ids));
});

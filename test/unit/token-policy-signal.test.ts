import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { TokenInOutPolicy } from "../../src/core/policy/openai-tokens";
import type { ChatMessage } from "../../src/core/policy/types";
import { ChatTokenizer } from "../../src/core/tokens/chat-template";
import { QWEN3_DIR, qwenEncode } from "../support/qwen-tokens";

const tokenizer = new ChatTokenizer(QWEN3_DIR);

/** A loopback completions endpoint that answers "ok" as Qwen3 ids, or never answers when `hang`. */
async function serve(hang: boolean): Promise<{ server: Server; baseURL: string }> {
  const ids = qwenEncode("ok<|im_end|>");
  const body = JSON.stringify({ choices: [{ text: "ok<|im_end|>", token_ids: ids, finish_reason: "stop", logprobs: null }] });
  const server = createServer((req, res) => {
    req.resume();
    if (!hang) req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

test("token-in/token-out: a run's signal keeps no listener from requests that ended, however many turns there were", async () => {
  const { server, baseURL } = await serve(false);
  try {
    const policy = new TokenInOutPolicy({ baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer });
    const signal = new AbortController().signal;
    const messages: ChatMessage[] = [{ role: "user", content: "Say ok." }];
    for (let turn = 0; turn < 15; turn++) {
      const reply = await policy.next({ messages, tools: [], turn, signal });
      assert.equal(reply.content, "ok");
      messages.push({ role: "assistant", content: reply.content }, { role: "user", content: "Again." });
    }
    assert.equal(getEventListeners(signal, "abort").length, 0);
  } finally {
    server.close();
  }
});

test("token-in/token-out: the run's signal stops a request in flight with its own reason, and the deadline stops one the server never answers", async () => {
  const { server, baseURL } = await serve(true);
  try {
    const ac = new AbortController();
    const policy = new TokenInOutPolicy({ baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer });
    const pending = policy.next({ messages: [{ role: "user", content: "Say ok." }], tools: [], turn: 0, signal: ac.signal });
    setTimeout(() => ac.abort(new Error("rollout cancelled")), 50);
    await assert.rejects(pending, /rollout cancelled/);
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);

    const impatient = new TokenInOutPolicy({ baseURL, model: "qwen3", tokenizerDir: QWEN3_DIR, tokenizer, timeoutMs: 50, retries: 0 });
    await assert.rejects(
      impatient.next({ messages: [{ role: "user", content: "Say ok." }], tools: [], turn: 0, signal: new AbortController().signal }),
      /failed 1 times: the policy server did not answer in time/,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

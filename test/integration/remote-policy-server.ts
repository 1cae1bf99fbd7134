/**
 * A scripted OpenAI-compatible policy server (the one stand-in allowed: no LLM runs here)
 * that a job starts itself: `node --import tsx remote-policy-server.ts` listens on $PORT,
 * answers /v1/models only after $READY_DELAY_MS (so the readiness check is exercised), and
 * answers every chat completion by calling `submit` with the number in the task prompt.
 * Its completions endpoint answers token-in/token-out requests as vLLM serving Qwen3 does: the
 * prompt arrives as ids, the reply is the Hermes tool call Qwen3 samples, as real Qwen3 ids.
 * With $DIE_AFTER_REQUESTS it exits (code 3) on the request after that many, as a server that
 * crashes mid-job (out of GPU memory, say) does.
 */
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 0);
const readyAt = Date.now() + Number(process.env.READY_DELAY_MS ?? 1500);
const dieAfter = process.env.DIE_AFTER_REQUESTS === undefined ? Number.POSITIVE_INFINITY : Number(process.env.DIE_AFTER_REQUESTS);
let requests = 0;

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  if (Date.now() < readyAt) return json(503, { error: { message: "loading the model" } });
  if (req.method === "GET" && req.url === "/v1/models") return json(200, { object: "list", data: [{ id: "scripted", object: "model" }] });
  if (req.method === "POST" && ++requests > dieAfter) {
    process.stderr.write(`scripted policy server: dying on request ${requests}\n`);
    process.exit(3);
  }
  if (req.method === "POST" && req.url?.endsWith("/v1/completions")) return json(200, await tokenCompletion(Buffer.concat(chunks)));
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions"))
    return json(404, { error: { message: `no route ${req.method} ${req.url}` } });
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: Array<{ role: string; content?: unknown }> };
  const prompt = body.messages
    .filter((m) => m.role === "user")
    .map((m) => String(m.content))
    .join("\n");
  const answer = /submit (\d+)/.exec(prompt)?.[1] ?? "";
  json(200, {
    id: "chatcmpl-remote",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "scripted",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_0", type: "function", function: { name: "submit", arguments: JSON.stringify({ answer }) } }],
        },
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
});
server.listen(port, "127.0.0.1", () => process.stdout.write(`scripted policy server on ${port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));

/** A /v1/completions reply to a prompt of Qwen3 ids: the tool call that submits the prompt's number, as Qwen3's ids. */
async function tokenCompletion(raw: Buffer): Promise<unknown> {
  // Loaded on the first token request only: chat-mode jobs never pay for the tokenizer.
  const { qwenDecode, qwenEncode } = await import("../support/qwen-tokens");
  const body = JSON.parse(raw.toString("utf8")) as { prompt: number[] };
  const prompt = qwenDecode(body.prompt);
  const answer = /submit (\d+)/.exec(prompt)?.[1] ?? "";
  const text = `<tool_call>\n{"name": "submit", "arguments": {"answer": "${answer}"}}\n</tool_call><|im_end|>`;
  const ids = qwenEncode(text);
  return {
    id: "cmpl-remote",
    object: "text_completion",
    model: "scripted",
    choices: [{ index: 0, text, finish_reason: "stop", token_ids: ids, logprobs: { token_logprobs: ids.map((_, i) => -0.125 * (i % 5)) } }],
  };
}

/**
 * A scripted OpenAI-compatible policy server (the one stand-in allowed: no LLM runs here)
 * that a job starts itself: `node --import tsx remote-policy-server.ts` listens on $PORT,
 * answers /v1/models only after $READY_DELAY_MS (so the readiness check is exercised), and
 * answers every chat completion by calling `submit` with the number in the task prompt.
 */
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 0);
const readyAt = Date.now() + Number(process.env.READY_DELAY_MS ?? 1500);

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  if (Date.now() < readyAt) return json(503, { error: { message: "loading the model" } });
  if (req.method === "GET" && req.url === "/v1/models") return json(200, { object: "list", data: [{ id: "scripted", object: "model" }] });
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

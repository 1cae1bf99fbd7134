import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted OpenAI-compatible Chat Completions server on loopback: the one stand-in the
 * tests may use, since no LLM runs here. It speaks the real wire format (JSON replies,
 * server-sent-event streams with tool-call deltas, error bodies), so the official
 * `openai` client talks to it unchanged.
 */

export interface ScriptedToolCall {
  name: string;
  /** Sent as-is: a string may be deliberately broken JSON. */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export type ScriptStep =
  | {
      reply: { content?: string | null; tool_calls?: ScriptedToolCall[] };
      usage?: { prompt_tokens: number; completion_tokens: number };
      /** Token ids and logprobs, sent the way vLLM sends them, only to a request with return_token_ids. */
      tokens?: ScriptedTokens;
      delayMs?: number;
    }
  | { status: number; message?: string; delayMs?: number; headers?: Record<string, string> }
  /** Any status, headers and body, sent as they are: an HTML page, an empty or a cut JSON body. */
  | { raw: { status: number; headers?: Record<string, string>; body: string } }
  /** Never answers (until the client gives up or the server closes). */
  | { hang: true }
  /** Drops the connection without a response. */
  | { reset: true };

export interface ScriptedTokens {
  prompt_token_ids: number[];
  token_ids: number[];
  logprobs?: number[];
}

export interface ScriptedServerOptions {
  /** Answer HTTP 400 to a request with fields OpenAI's API does not know (return_token_ids), as that API does. */
  refuseTokenFields?: boolean;
}

/** The body a client sent, as parsed JSON. */
export interface RecordedRequest {
  model?: string;
  stream?: boolean;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  [k: string]: unknown;
}

export interface ScriptedServer {
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Either a fixed list of steps (consumed in order; the last repeats) or a function of the request. */
export type Script = ScriptStep[] | ((req: RecordedRequest, index: number) => ScriptStep);

/**
 * A step that is no reply (hang, reset, raw bytes, an error status) answered as scripted, after
 * its delay; a reply step is handed back for the caller to write in its own API's shape.
 * Shared by the chat and Responses scripted servers, so both fail alike.
 */
export async function replyStep(
  step: ScriptStep,
  req: IncomingMessage,
  res: ServerResponse,
  hanging: Set<ServerResponse>,
): Promise<Extract<ScriptStep, { reply: unknown }> | null> {
  if ("hang" in step) {
    hanging.add(res);
    res.on("close", () => hanging.delete(res));
    return null;
  }
  if ("reset" in step) {
    req.socket.destroy();
    return null;
  }
  if ("raw" in step) {
    res.writeHead(step.raw.status, step.raw.headers ?? {}).end(step.raw.body);
    return null;
  }
  if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
  if ("status" in step) {
    res
      .writeHead(step.status, { "content-type": "application/json", ...step.headers })
      .end(JSON.stringify({ error: { message: step.message ?? `scripted ${step.status}`, type: "scripted", code: step.status } }));
    return null;
  }
  return step;
}

export async function startScriptedServer(script: Script, opts: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RecordedRequest;
    const index = requests.length;
    requests.push(body);
    if (opts.refuseTokenFields && "return_token_ids" in body) {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(
          JSON.stringify({ error: { message: "Unrecognized request argument supplied: return_token_ids", type: "invalid_request_error" } }),
        );
      return;
    }
    const scripted = typeof script === "function" ? script(body, index) : (script[Math.min(index, script.length - 1)] as ScriptStep);
    const step = await replyStep(scripted, req, res, hanging);
    if (!step) return;
    const calls = (step.reply.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${index}_${i}`,
      type: "function" as const,
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const usage = step.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${index}`;
    const tokens = body.return_token_ids === true ? step.tokens : undefined;
    const logprobEntries = (ids: number[], lps: number[] | undefined) =>
      body.logprobs === true && lps ? { logprobs: { content: ids.map((t, i) => ({ token: `t${t}`, logprob: lps[i], bytes: [] })) } } : {};
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      const chunk = (delta: unknown, finish: string | null = null) =>
        send({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
      if (tokens)
        send({ id, object: "chat.completion.chunk", created, model: body.model, prompt_token_ids: tokens.prompt_token_ids, choices: [] });
      chunk({ role: "assistant", content: null });
      const content = step.reply.content ?? null;
      if (content) for (let i = 0; i < content.length; i += 7) chunk({ content: content.slice(i, i + 7) });
      calls.forEach((c, i) => {
        chunk({ tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] });
        const a = c.function.arguments;
        for (let j = 0; j < a.length; j += 5) chunk({ tool_calls: [{ index: i, function: { arguments: a.slice(j, j + 5) } }] });
      });
      // vLLM streams ids (and logprobs) as deltas of their own: here in runs of 64.
      for (let i = 0; tokens && i < tokens.token_ids.length; i += 64) {
        const ids = tokens.token_ids.slice(i, i + 64);
        send({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [
            { index: 0, delta: {}, token_ids: ids, ...logprobEntries(ids, tokens.logprobs?.slice(i, i + 64)), finish_reason: null },
          ],
        });
      }
      chunk({}, calls.length > 0 ? "tool_calls" : "stop");
      send({
        id,
        object: "chat.completion.chunk",
        created,
        model: body.model,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model: body.model ?? "scripted",
        choices: [
          {
            index: 0,
            finish_reason: calls.length > 0 ? "tool_calls" : "stop",
            message: { role: "assistant", content: step.reply.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
            ...(tokens ? { token_ids: tokens.token_ids, ...logprobEntries(tokens.token_ids, tokens.logprobs) } : {}),
          },
        ],
        ...(tokens ? { prompt_token_ids: tokens.prompt_token_ids } : {}),
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A reply that calls one tool. */
export const callTool = (name: string, args: Record<string, unknown> | string, content: string | null = null): ScriptStep => ({
  reply: { content, tool_calls: [{ name, arguments: args }] },
});

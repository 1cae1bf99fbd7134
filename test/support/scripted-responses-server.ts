import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { replyStep, type ScriptedTokens, type ScriptStep } from "./scripted-openai-server";

/**
 * A scripted OpenAI Responses API server on loopback (`POST /v1/responses`), answering as a
 * NeMo Gym model server does (responses_api_models/vllm_model with return_token_id_information):
 * a reply's output items are its assistant message (if any text) then its function calls, and the
 * LAST item carries `prompt_token_ids`, `generation_token_ids`, `generation_log_probs`. Steps are
 * scripted-openai-server's (reply, status, raw, hang, reset), so tests script both APIs alike.
 */

export interface RecordedResponsesRequest {
  model?: string;
  input: Array<Record<string, unknown>>;
  tools?: Array<{ type: string; name: string }>;
  [k: string]: unknown;
}

export interface ScriptedResponsesServer {
  baseURL: string;
  requests: RecordedResponsesRequest[];
  close(): Promise<void>;
}

type Script = ScriptStep[] | ((req: RecordedResponsesRequest, index: number) => ScriptStep);

function outputOf(step: Extract<ScriptStep, { reply: unknown }>, index: number, tokens: ScriptedTokens | undefined) {
  const items: Array<Record<string, unknown>> = [];
  const content = step.reply.content ?? null;
  const calls = step.reply.tool_calls ?? [];
  if (content || calls.length === 0)
    items.push({
      id: `msg_${index}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: content ?? "", annotations: [] }],
    });
  calls.forEach((c, i) => {
    const id = c.id ?? `call_${index}_${i}`;
    items.push({
      id,
      call_id: id,
      type: "function_call",
      status: "completed",
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    });
  });
  const last = items[items.length - 1];
  if (last && tokens)
    Object.assign(last, {
      prompt_token_ids: tokens.prompt_token_ids,
      generation_token_ids: tokens.token_ids,
      generation_log_probs: tokens.logprobs ?? tokens.token_ids.map(() => -0.5),
    });
  return items;
}

export async function startScriptedResponsesServer(script: Script): Promise<ScriptedResponsesServer> {
  const requests: RecordedResponsesRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RecordedResponsesRequest;
    const index = requests.length;
    requests.push(body);
    const scripted = typeof script === "function" ? script(body, index) : (script[Math.min(index, script.length - 1)] as ScriptStep);
    const step = await replyStep(scripted, req, res, hanging);
    if (!step) return;
    const usage = step.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: `resp_${index}`,
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        model: body.model ?? "scripted",
        status: "completed",
        output: outputOf(step, index, step.tokens),
        parallel_tool_calls: true,
        tool_choice: "auto",
        tools: body.tools ?? [],
        usage: {
          input_tokens: usage.prompt_tokens,
          output_tokens: usage.completion_tokens,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens_details: { reasoning_tokens: 0 },
        },
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

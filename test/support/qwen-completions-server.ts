import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeLogprob, qwenEncode, sampledText } from "./qwen-tokens";
import type { RecordedRequest, ScriptedToolCall } from "./scripted-openai-server";

export interface CompletionsServer {
  baseURL: string;
  /** The token ids each request sent as its prompt. */
  prompts: number[][];
  close(): Promise<void>;
}

/**
 * A scripted completions endpoint answering as vLLM serving Qwen3 does for token-id prompts
 * (`prompt: [ids]`, `return_token_ids`): the reply for the n-th request is the n-th planned reply,
 * sampled as Qwen3 writes it (its template's rendering of that assistant turn), as real Qwen3 ids
 * with made-up logprobs.
 */
export async function startCompletionsServer(
  plan: Array<{ content?: string | null; tool_calls?: ScriptedToolCall[] }>,
): Promise<CompletionsServer> {
  const prompts: number[][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { prompt: number[]; return_token_ids?: boolean; model: string };
      if (!req.url?.endsWith("/completions") || !Array.isArray(body.prompt)) {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "expected a token-id prompt" } }));
        return;
      }
      const n = prompts.push(body.prompt) - 1;
      const reply = plan[Math.min(n, plan.length - 1)]!;
      const text = sampledText({ messages: [{ role: "user", content: "." }] } as RecordedRequest, reply);
      const ids = qwenEncode(text);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `cmpl-${n}`,
          object: "text_completion",
          model: body.model,
          choices: [
            {
              index: 0,
              text,
              finish_reason: "stop",
              ...(body.return_token_ids ? { token_ids: ids } : {}),
              logprobs: { tokens: ids.map((i) => `t${i}`), token_logprobs: ids.map((_, i) => fakeLogprob(i)) },
            },
          ],
          usage: { prompt_tokens: body.prompt.length, completion_tokens: ids.length },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    prompts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

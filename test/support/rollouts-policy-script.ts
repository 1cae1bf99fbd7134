import type { RecordedRequest, ScriptStep } from "./scripted-openai-server";

/**
 * A scripted policy for the rollout fixture that returns token ids and logprobs as vLLM does, from a
 * toy byte-level "tokenizer": every message is its role and text as UTF-8 bytes (+ 1000 for the
 * assistant's), so the next turn's prompt starts with this turn's prompt and completion (no drift)
 * and a test can tell sampled tokens from prompt and tool tokens by their ids.
 * Turn 0 writes greet.txt, turn 1 submits: "42" (reward 1) for an even sampling seed, "41" (0.5) for an odd one.
 */
export function encodeMessage(m: { role: string; content?: unknown; tool_calls?: unknown }): number[] {
  if (m.role === "assistant") return [...assistantText(m)].map((c) => 1000 + (c.codePointAt(0) ?? 0));
  const text = `${m.role}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")}`;
  return [...Buffer.from(text, "utf8")];
}

function assistantText(m: { content?: unknown; tool_calls?: unknown }): string {
  const calls = (m.tool_calls ?? []) as Array<{ function?: { name: string; arguments: string }; name?: string; arguments?: unknown }>;
  const named = calls.map((c) => (c.function ? `${c.function.name}${c.function.arguments}` : `${c.name}${JSON.stringify(c.arguments)}`));
  return `${typeof m.content === "string" ? m.content : ""}${named.join("")}`;
}

/** The sampled logprob of the i-th completion token: distinct and recognisable. */
export const logprobAt = (i: number) => -((i % 97) + 1) / 128;

/** The task id the fixture's system prompt names ("… on task {{task.id}}."). */
export function taskOf(req: RecordedRequest): string {
  const system = String(req.messages[0]?.content ?? "");
  return /on task ([\w-]+)/.exec(system)?.[1] ?? "";
}

export function rolloutsPolicyStep(req: RecordedRequest, extra: { delayMs?: number } = {}): ScriptStep {
  const turn = req.messages.filter((m) => m.role === "assistant").length;
  const answer = typeof req.seed === "number" && req.seed % 2 === 1 ? "41" : "42";
  const tool_calls =
    turn === 0
      ? [{ name: "put", arguments: JSON.stringify({ path: "greet.txt", text: "hello world\n" }) }]
      : [{ name: "submit", arguments: JSON.stringify({ answer }) }];
  const prompt = req.messages.flatMap((m) => encodeMessage(m));
  const completion = encodeMessage({ role: "assistant", content: null, tool_calls: tool_calls.map((c) => ({ function: c })) });
  return {
    reply: { content: null, tool_calls },
    usage: { prompt_tokens: prompt.length, completion_tokens: completion.length },
    tokens: { prompt_token_ids: prompt, token_ids: completion, logprobs: completion.map((_, i) => logprobAt(i)) },
    ...(extra.delayMs ? { delayMs: extra.delayMs } : {}),
  };
}

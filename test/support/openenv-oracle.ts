/**
 * Drives a task's oracle over OpenEnv's wire, client-side: the reference solution's tool
 * calls (OraclePolicy, as `rlenv run --policy oracle` plays them) become `call_tools` actions
 * on a WS /ws session, one action per agent turn, so a served episode takes the same turns as
 * the run. Only what an OpenEnv client can do: an oracle that needs the sandbox directly
 * (files no tool can write) cannot be played over the protocol and throws.
 */
import type { LoadedTask } from "../../src/core/model/environment";
import { OraclePolicy } from "../../src/core/policy/oracle";
import type { ChatMessage, ToolSpec } from "../../src/core/policy/types";
import type { OpenEnvWsClient, StepResult } from "./openenv-client";

export class NeedsSandbox extends Error {}

export async function playOracle(client: OpenEnvWsClient, task: LoadedTask, reset: StepResult): Promise<StepResult> {
  const wireTools = reset.observation.tools as Array<{ name: string; description: string; input_schema: Record<string, unknown> }>;
  const tools: ToolSpec[] = wireTools.map((t) => ({ name: t.name, description: t.description, parameters: t.input_schema }));
  const messages = [...(reset.observation.messages as ChatMessage[])];
  const policy = new OraclePolicy(task.solution);
  const signal = new AbortController().signal;
  await policy.prepare({
    tools,
    sandbox: () => Promise.reject(new NeedsSandbox(`${task.id}: the oracle writes into the sandbox directly, which no OpenEnv client can`)),
    signal,
    timeoutMs: 60_000,
  });
  let last = reset;
  for (let turn = 0; !last.done; turn++) {
    const reply = await policy.next({ messages, tools, turn, signal });
    messages.push({ role: "assistant", content: reply.content, tool_calls: reply.tool_calls });
    last =
      reply.tool_calls.length === 0
        ? await client.step({ type: "finish", content: reply.content })
        : await client.step({
            type: "call_tools",
            tool_calls: reply.tool_calls.map((c) => ({ tool_name: c.name, arguments: c.arguments, id: c.id })),
            content: reply.content,
          });
    for (const r of (last.observation.tool_results ?? []) as Array<{ tool_call_id: string; result: { data: string } }>) {
      messages.push({ role: "tool", tool_call_id: r.tool_call_id, content: r.result.data });
    }
    messages.push(...((last.observation.messages ?? []) as ChatMessage[]));
  }
  return last;
}

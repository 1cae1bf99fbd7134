import type { TrajectoryEvent } from "../schema/trajectory";
import { endedOnInfra, rolloutFiles } from "./run-dir";
import { readTrajectory } from "./trajectory-reader";

type ChatRecordMessage =
  | { role: "system" | "user"; content: unknown }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** One OpenAI chat fine-tuning record: the conversation as the policy saw it, with its tools. */
export interface ChatRecord {
  messages: ChatRecordMessage[];
  tools?: Array<{ type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  metadata: { run_id: string; rollout_id: string; task: string; sample: number; reward: number | null; status: string };
}

const textOf = (c: unknown): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "[image]")).join("\n")
      : "";

/** A finished trajectory as a chat record; null for one that did not end. */
export function trajectoryToChat(events: readonly TrajectoryEvent[]): ChatRecord | null {
  const start = events.find((e) => e.type === "start");
  const end = events.findLast((e) => e.type === "end");
  if (start?.type !== "start" || end?.type !== "end") return null;
  const messages: ChatRecordMessage[] = [];
  for (const e of events) {
    if (e.type === "message") {
      if (e.role === "assistant") {
        messages.push({
          role: "assistant",
          content: typeof e.content === "string" || e.content === null ? e.content : textOf(e.content),
          ...(e.tool_calls?.length
            ? {
                tool_calls: e.tool_calls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        });
      } else messages.push({ role: e.role, content: e.content });
    } else if (e.type === "observation") messages.push({ role: "tool", tool_call_id: e.tool_call_id, content: textOf(e.output) });
  }
  // A training record ends with the assistant's last turn: what follows it (the submit tool's
  // "submitted; the hidden tests will now run") is the environment talking, with nothing left to learn.
  while (messages.length > 0 && messages.at(-1)?.role !== "assistant") messages.pop();
  return {
    messages,
    ...(start.tools ? { tools: start.tools.map((t) => ({ type: "function" as const, function: t })) } : {}),
    metadata: {
      run_id: start.run_id,
      rollout_id: start.rollout_id,
      task: start.task.id,
      sample: start.sample,
      reward: end.reward,
      status: end.status,
    },
  };
}

/**
 * The run's finished rollouts with reward ≥ minReward, as JSONL lines of OpenAI's chat
 * fine-tuning format: `messages` and `tools`, no key outside its schema (its validator refuses
 * a file with one). Rollouts the infrastructure failed or a person cancelled are left out
 * whatever the filters, as in every format: their conversation was cut, not ended by the agent.
 */
export function* exportChatJsonl(runDir: string, opts: { minReward?: number; statuses?: string[] } = {}): Generator<string> {
  for (const file of rolloutFiles(runDir)) {
    const { events } = readTrajectory(file);
    if (endedOnInfra(events)) continue;
    const rec = trajectoryToChat(events);
    if (!rec || rec.metadata.status === "cancelled") continue;
    if (opts.minReward !== undefined && (rec.metadata.reward ?? -1) < opts.minReward) continue;
    if (opts.statuses && !opts.statuses.includes(rec.metadata.status)) continue;
    yield JSON.stringify({ messages: rec.messages, ...(rec.tools ? { tools: rec.tools } : {}) });
  }
}

import type { LoadedTask } from "../../src/core/model/environment";
import { OraclePolicy } from "../../src/core/policy/oracle";
import type { ServedObservation, ServedToolCall } from "../../src/core/serve/session-types";

/** How a client plays a turn over its protocol: tool calls, or a final word. */
export interface ServedTurns {
  step(calls: ServedToolCall[]): Promise<ServedObservation>;
  finish(text: string | null): Promise<ServedObservation>;
}

/**
 * The oracle's moves played from the client's side of a server: its reference solution's tool
 * calls, turn by turn, sent as the protocol's steps. The oracle never touches the sandbox here
 * (a served client cannot): a solution only direct writes could apply fails, naming why.
 */
export async function playOracleServed(task: LoadedTask, first: ServedObservation, turns: ServedTurns): Promise<ServedObservation> {
  const oracle = new OraclePolicy(task.solution);
  const signal = new AbortController().signal;
  await oracle.prepare({
    tools: first.tools,
    sandbox: async () => {
      throw new Error(`${task.id}: the oracle needs a direct sandbox write, which a served client cannot make`);
    },
    signal,
    timeoutMs: 60_000,
  });
  let obs = first;
  for (let turn = first.turn; !obs.done; turn++) {
    const reply = await oracle.next({ messages: [], tools: first.tools, turn, signal });
    obs =
      reply.tool_calls.length > 0
        ? await turns.step(reply.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })))
        : await turns.finish(reply.content);
  }
  return obs;
}

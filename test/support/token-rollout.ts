import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { startEvent } from "./run-folder";

/** What the token rollout's turns hold, for tests to check the viewer against. */
export interface TokenRolloutPlan {
  file: string;
  /** Sequence positions and ids of each captured turn, as the writer saw them. */
  turns: Array<{ offset: number; prompt: number[]; completion: number[]; logprobs: number[] | null }>;
  /** Where the drifting turn rewrote the sequence. */
  driftAt: number;
}

/**
 * A rollout file with token capture, written through the same ledger the engine uses: turn 1 a
 * short sampled answer, turn 2 a long one (`bigTurn` tokens, past one page of the token view),
 * turn 3 a prompt that drifts back into turn 2's tokens (a re-tokenising server), turn 4 on a
 * server that returned none.
 */
export function writeTokenRollout(dir: string, bigTurn = 4500): TokenRolloutPlan {
  mkdirSync(path.join(dir, "rollouts"), { recursive: true });
  const file = path.join(dir, "rollouts", "tok-0.jsonl");
  const ledger = new TokenLedger();
  const lines: string[] = [];
  let seq = 0;
  const ev = (e: Record<string, unknown>) => lines.push(JSON.stringify({ seq: seq++, t: 1000 + seq, ...e }));
  const turns: TokenRolloutPlan["turns"] = [];
  ev(
    startEvent({
      run_id: "tok",
      rollout_id: "tok-0",
      env: { name: "tok-env", hash: "h", domain: "custom" },
      task: { id: "tok-task", prompt: "Say hello" },
      policy: { kind: "openai", model: "qwen3-test" },
    }),
  );
  let sequence: number[] = [];
  const turn = (n: number, prompt: number[], completion: number[], logprobs: number[] | null, content: string) => {
    const offset = (() => {
      let i = 0;
      while (i < sequence.length && i < prompt.length && sequence[i] === prompt[i]) i++;
      return i;
    })();
    const tokens = ledger.record({
      capture: "server",
      promptIds: prompt,
      completionIds: completion,
      ...(logprobs ? { logprobs } : {}),
      finishReason: "stop",
      model: "qwen3-test",
    });
    turns.push({ offset, prompt: prompt.slice(offset), completion, logprobs });
    sequence = prompt.concat(completion);
    ev({
      type: "message",
      role: "assistant",
      turn: n,
      content,
      tokens,
      usage: { prompt_tokens: prompt.length, completion_tokens: completion.length },
    });
    ev({ type: "tool_call", turn: n, id: `c${n}`, name: "bash", arguments: { cmd: "ls" } });
    ev({
      type: "observation",
      turn: n,
      tool_call_id: `c${n}`,
      name: "bash",
      output: "a.txt\n",
      status: "ok",
      exit_code: 0,
      duration_ms: 3,
    });
  };
  const system = Array.from({ length: 12 }, (_, i) => 100 + i);
  // Turn 1: six sampled tokens, logprobs from certain to unlikely.
  const lp1 = [0, -0.05, -0.7, -2.3, -6, -0.01];
  turn(0, system, [10, 11, 12, 13, 14, 15], lp1, "hello");
  // Turn 2: the tool result (3 tokens of glue), then a long answer.
  const big = Array.from({ length: bigTurn }, (_, i) => 1000 + (i % 500));
  const lpBig = big.map((_, i) => -((i % 10) / 3));
  turn(1, sequence.concat([200, 201, 202]), big, lpBig, "a long answer");
  // Turn 3: the server re-rendered the chat: its prompt leaves turn 2's answer 100 tokens in.
  const driftAt = system.length + 6 + 3 + 100;
  turn(2, sequence.slice(0, driftAt).concat([777, 778, 779]), [30, 31], [-0.5, -0.25], "drifted");
  // Turn 4: a server that returned no tokens.
  ledger.record({ capture: "absent" });
  ev({ type: "message", role: "assistant", turn: 3, content: "done", tokens: { capture: "absent" } });
  ev({
    type: "end",
    status: "completed",
    reward: 1,
    turns: 4,
    usage: { prompt_tokens: 10, completion_tokens: 10 },
    timings: { total_ms: 50, policy_ms: 20, sandbox_ms: 20, verify_ms: 5 },
    tokens: ledger.summary(),
  });
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { file, turns, driftAt };
}

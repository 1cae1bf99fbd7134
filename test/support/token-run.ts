import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { startEvent, writeRunFolder } from "./run-folder";

/**
 * A run of `rollouts` token-captured rollouts (two tasks' groups), each `turns` assistant turns of
 * `tokensPerTurn` prompt and completion tokens: the shape rl-jsonl and parquet export.
 */
export function writeTokenRun(rollouts: number, turns: number, tokensPerTurn: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-token-run-"));
  writeRunFolder(dir, { ended: "2026-01-01T00:01:00Z", config: { policy: { kind: "openai", model: "m" }, k: 2 } });
  for (let i = 0; i < rollouts; i++) {
    const ledger = new TokenLedger();
    const events: unknown[] = [
      startEvent({ rollout_id: `x${i}`, policy: { kind: "openai", model: "m" }, sample: i, task: { id: `t${i % 2}`, prompt: "p" } }),
    ];
    let promptIds: number[] = Array.from({ length: tokensPerTurn }, (_, j) => (i * 7 + j) % 50_000);
    for (let t = 0; t < turns; t++) {
      const completionIds = Array.from({ length: tokensPerTurn }, (_, j) => (i + t + j * 3) % 50_000);
      const tokens = ledger.record({ capture: "server", promptIds, completionIds, logprobs: completionIds.map((x) => -(x % 97) / 100) });
      events.push({ type: "message", role: "assistant", content: "a", turn: t, tokens });
      promptIds = [...promptIds, ...completionIds, ...Array.from({ length: 8 }, (_, j) => j + 1)];
    }
    events.push({
      type: "end",
      status: "completed",
      reward: i % 3 === 0 ? 1 : 0,
      turns,
      usage: {},
      timings: { total_ms: 1, policy_ms: 1, sandbox_ms: 0, verify_ms: 0 },
      tokens: ledger.summary(),
    });
    writeFileSync(
      path.join(dir, "rollouts", `x${String(i).padStart(5, "0")}.jsonl`),
      `${events.map((e, seq) => JSON.stringify({ seq, t: 1000 + seq, ...(e as object) })).join("\n")}\n`,
    );
  }
  return dir;
}

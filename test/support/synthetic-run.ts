import { writeFileSync } from "node:fs";
import path from "node:path";
import { startEvent, writeRunFolder } from "./run-folder";

/** One rollout of a synthetic run: what its trajectory's events will say. */
export interface SyntheticRollout {
  task: string;
  sample: number;
  status?: "completed" | "truncated" | "timeout" | "error" | "cancelled";
  reward: number | null;
  reason?: string;
  /** Ended on a lost sandbox: an infra error event precedes the end. */
  infra?: boolean;
  components?: Array<{ name: string; weight: number; score: number; reason?: string }>;
  turns?: number;
  tokens?: [number, number];
  timings?: { total_ms: number; policy_ms: number; sandbox_ms: number; verify_ms: number };
  truncatedObservations?: number;
  /** Epoch ms of the start: the rollout then has an assistant message with its policy time as latency, and an end at start + total (a dashboard's utilisation). */
  startedAt?: number;
}

/** Writes `dir/<id>/` as a run would: run.json and one trajectory per rollout (start, observations, reward, end). */
export function writeSyntheticRun(parent: string, id: string, rollouts: SyntheticRollout[], k = 1): string {
  const dir = path.join(parent, id);
  writeRunFolder(dir, {
    id,
    ended: "2026-01-01T00:01:00Z",
    env: { name: "synthetic", hash: "h", domain: "custom", path: "/e" },
    config: { policy: { kind: "replay" }, k },
  });
  for (const r of rollouts) {
    const rid = `${r.task}-${r.sample}`;
    let seq = 0;
    const at = r.startedAt ?? 1;
    const timings = r.timings ?? { total_ms: 10, policy_ms: 4, sandbox_ms: 3, verify_ms: 1 };
    const ev = (e: object, t = at) => JSON.stringify({ seq: seq++, t, ...e });
    const lines = [
      ev(
        startEvent({
          run_id: id,
          rollout_id: rid,
          env: { name: "synthetic", hash: "h", domain: "custom" },
          task: { id: r.task, prompt: "p" },
          policy: { kind: "replay" },
          sample: r.sample,
        }),
      ),
    ];
    if (r.startedAt !== undefined)
      lines.push(ev({ type: "message", role: "assistant", content: "…", latency_ms: timings.policy_ms }, at + timings.policy_ms));
    for (let i = 0; i < (r.truncatedObservations ?? 0) + 1; i++)
      lines.push(
        ev({
          type: "observation",
          tool_call_id: `c${i}`,
          name: "bash",
          output: "x",
          duration_ms: 1,
          ...(i < (r.truncatedObservations ?? 0) ? { truncated: { original_chars: 10, kept_chars: 1 } } : {}),
        }),
      );
    if (r.infra) lines.push(ev({ type: "error", where: "sandbox", message: "container vanished", infra: true }));
    if (r.components)
      lines.push(
        ev({
          type: "reward",
          total: r.reward ?? 0,
          components: r.components.map((c) => ({ type: "tests", ...c, passed: c.score >= 1 })),
        }),
      );
    lines.push(
      ev(
        {
          type: "end",
          status: r.infra ? "error" : (r.status ?? "completed"),
          ...(r.reason ? { reason: r.reason } : {}),
          reward: r.infra ? null : r.reward,
          turns: r.turns ?? 1,
          usage: { prompt_tokens: r.tokens?.[0] ?? 0, completion_tokens: r.tokens?.[1] ?? 0 },
          timings,
        },
        at + (r.startedAt !== undefined ? timings.total_ms : 0),
      ),
    );
    writeFileSync(path.join(dir, "rollouts", `${rid.replace(/[^\w.-]/g, "_")}.jsonl`), `${lines.join("\n")}\n`);
  }
  return dir;
}

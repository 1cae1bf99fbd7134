import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { RunConfig } from "../schema/run";
import type { WorkUnit } from "./api";

/**
 * The `rlenv run` arguments for one work unit: the job's run config, narrowed to the
 * unit's tasks/samples or shard, writing into the unit's own runs folder.
 */
export function runArgs(
  envDir: string,
  runsDir: string,
  config: RunConfig,
  unit: Pick<WorkUnit, "tasks" | "k" | "shard" | "samples">,
  policyBaseUrl?: string,
): string[] {
  const p = config.policy;
  const args = ["run", envDir, "--runs", runsDir, "--sandbox", config.sandbox, "--concurrency", String(config.concurrency)];
  args.push("--policy", p.kind === "replay" && p.replay ? `replay:${p.replay}` : p.kind);
  if (p.model) args.push("--model", p.model);
  const baseUrl = policyBaseUrl ?? p.base_url;
  if (baseUrl) args.push("--base-url", baseUrl);
  if (p.temperature !== undefined) args.push("--temperature", String(p.temperature));
  if (p.top_p !== undefined) args.push("--top-p", String(p.top_p));
  if (p.max_tokens !== undefined) args.push("--max-tokens", String(p.max_tokens));
  if (p.timeout_ms !== undefined) args.push("--timeout-ms", String(p.timeout_ms));
  if (p.tokens) args.push("--tokens");
  if (p.tokenizer) args.push("--tokenizer", p.tokenizer);
  if (p.tool_parser) args.push("--tool-parser", p.tool_parser);
  if (config.seed !== undefined) args.push("--seed", String(config.seed));
  if (config.policy_concurrency !== undefined) args.push("--policy-concurrency", String(config.policy_concurrency));
  // A unit's own samples (a resumed pool shard's remainder) replace the job's, and with them -k.
  const samples = unit.samples ?? config.samples;
  args.push("-k", String(unit.samples ? config.k : (unit.k ?? config.k)));
  const tasks = unit.tasks ?? config.tasks;
  if (tasks && tasks.length > 0) args.push("--tasks", ...tasks);
  const shard = unit.shard ?? config.shard;
  if (shard) args.push("--shard", `${shard.index}/${shard.count}`);
  if (samples) args.push("--only-samples", JSON.stringify(samples));
  return args;
}

/**
 * Whether a unit's `rlenv run` got to the end: it exits 1 when some rollouts ended in
 * error, which are recorded in their trajectories, so a written summary.json is the mark.
 */
export function unitFinishedRun(runsDir: string): boolean {
  try {
    return readdirSync(runsDir).some((d) => existsSync(path.join(runsDir, d, "summary.json")));
  } catch {
    return false;
  }
}

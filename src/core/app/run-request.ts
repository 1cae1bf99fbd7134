import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { RunRequest } from "../schema/run-request";

export { RunRequest, type RunRequestInput } from "../schema/run-request";

/** A request file, parsed: what is wrong with it is named with the field. */
export function readRunRequest(file: string): RunRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`--request ${file}: ${(e as Error).message}`);
  }
  const r = RunRequest.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`--request ${file}: ${i ? `${i.path.join(".") || "value"}: ${i.message}` : "not a run request"}`);
  }
  return r.data;
}

/**
 * A request's policy files, checked once before any sandbox starts, with the words of the flags
 * that name them: otherwise every rollout starts and fails on the same missing file (and a
 * runner's shard would end as if it had run).
 */
export function checkPolicyFiles(policy: RunRequest["config"]["policy"]): void {
  if (policy.kind === "replay" && policy.replay && !existsSync(policy.replay))
    throw new Error(`--policy replay:${policy.replay}: no such file or run folder`);
  if (policy.tokenizer && !existsSync(path.join(policy.tokenizer, "tokenizer.json")))
    throw new Error(`--tokenizer ${policy.tokenizer}: no tokenizer.json in that folder`);
}

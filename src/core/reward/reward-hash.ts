import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Environment, LoadedTask } from "../model/environment";
import type { VerifierConfig } from "../schema/verifier";
import { JUDGE_ANSWER_CHARS, JUDGE_SYSTEM_PROMPT, JUDGE_USER_TEMPLATE } from "./judge-client";
import { rewardFor } from "./task-reward";

/**
 * The hash of an environment's reward definition: what decides the reward of a given
 * submission, and nothing else (a changed prompt, tool or seed file leaves it as it was, so two
 * runs that differ only there are still comparable; a changed test, gold answer or judge rubric
 * shows). Recorded in every trajectory's `start` event, the run record and its summary.
 *
 * What goes in, as canonical JSON (object keys sorted) hashed with SHA-256, cut to 16 hex digits:
 * - `format`: REWARD_HASH_FORMAT, bumped when this list changes;
 * - `reward`: the manifest's verifier list as parsed (defaults filled in: weights, modes,
 *   tolerances, every `fields` comparator and its settings, judge rubrics, models and URLs);
 * - `judge`: the manifest's judge settings (fresh or agent sandbox, what a hack signal does);
 * - `judge_prompt`: the judge model's system prompt, its user template and the answer length it is shown;
 * - `tasks`: per task, in id order, its part (see taskRewardPart): its merged reward list, hidden
 *   tests (files, command, stdio cases), hidden target (gold answers, scene checks) and its stages';
 * - `files`: the files a verifier command names (a token of a `tests`/`script` command, or of a
 *   task's tests command, that is a file under the environment folder or its build context),
 *   by path relative to the environment and the SHA-256 of its bytes.
 * Not in it: rlenv's own verifier code (the trajectory's rlenv version says that), files baked into
 * an image that no command names by a path the folder holds, the policy and its prompts.
 */
export const REWARD_HASH_FORMAT = "rlenv-reward/1";

const cache = new WeakMap<Environment, string>();

/** The environment's reward hash (computed once per loaded environment). */
export function rewardHash(env: Environment): string {
  const known = cache.get(env);
  if (known) return known;
  const h = digest(rewardDefinition(env));
  cache.set(env, h);
  return h;
}

/** One task's part of the reward definition, hashed alone: a change to one task's tests shows on that task. */
export function taskRewardHash(env: Environment, task: LoadedTask): string {
  const known = taskCache.get(task);
  if (known?.env === env) return known.hash;
  const hash = digest({ format: REWARD_HASH_FORMAT, ...taskRewardPart(env, task) });
  taskCache.set(task, { env, hash });
  return hash;
}

// Every rollout's start event asks for its task's hash: computed once per loaded task (and environment).
const taskCache = new WeakMap<LoadedTask, { env: Environment; hash: string }>();

/** What rewardHash hashes, as a plain object (for tests and for a reader who wants to diff two definitions). */
export function rewardDefinition(env: Environment): Record<string, unknown> {
  const m = env.manifest;
  const tasks = [...env.tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const commands = [...verifierCommands(m.reward), ...tasks.flatMap((t) => taskCommands(env, t))];
  return {
    format: REWARD_HASH_FORMAT,
    reward: m.reward,
    judge: m.judge,
    judge_prompt: { system: JUDGE_SYSTEM_PROMPT, user: JUDGE_USER_TEMPLATE, answer_chars: JUDGE_ANSWER_CHARS },
    tasks: tasks.map((t) => taskRewardPart(env, t)),
    files: namedFiles(env, commands),
  };
}

function taskRewardPart(env: Environment, task: LoadedTask): Record<string, unknown> {
  return {
    id: task.id,
    // Only the task's own list when it has one: the manifest's is hashed once, above.
    reward: task.reward ? rewardFor(env.manifest.reward, task) : null,
    tests: task.tests ?? null,
    target: task.target ?? null,
    stages: task.stages
      ? {
          strategy: task.stages.strategy,
          list: task.stages.list.map((s) => ({ name: s.name, tests: s.tests ?? null, reward: s.reward ?? null, min: s.minReward ?? null })),
        }
      : null,
  };
}

function verifierCommands(list: readonly VerifierConfig[]): string[] {
  return list.flatMap((v) => ((v.type === "tests" || v.type === "script") && v.command ? [v.command] : []));
}

function taskCommands(env: Environment, task: LoadedTask): string[] {
  const own = task.reward ? verifierCommands(rewardFor(env.manifest.reward, task)) : [];
  const stages = task.stages?.list.flatMap((s) => [...verifierCommands(s.reward ?? []), ...(s.tests?.command ? [s.tests.command] : [])]);
  return [...own, ...(task.tests?.command ? [task.tests.command] : []), ...(stages ?? [])];
}

/** Longest file read for the hash: a verifier's script or data, not a dataset. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The files under the environment (or its build context) that a command names, each with its bytes' hash. */
function namedFiles(env: Environment, commands: readonly string[]): Array<{ path: string; sha256: string }> {
  const roots = [env.dir, ...(env.paths.build ? [path.dirname(env.paths.build)] : [])].map((r) => path.resolve(r));
  const found = new Map<string, string>();
  for (const token of new Set(commands.flatMap((c) => c.split(/[\s'"`;|&()<>=]+/)))) {
    if (!/[./]/.test(token) || token.length > 512) continue;
    for (const root of roots) {
      const file = path.resolve(root, token.replace(/^\/+/, ""));
      // A path outside the folder is never read: a command may name anything in the sandbox.
      if (!file.startsWith(root + path.sep) || !existsSync(file)) continue;
      const st = statSync(file);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) continue;
      found.set(path.relative(env.dir, file).split(path.sep).join("/"), createHash("sha256").update(readFileSync(file)).digest("hex"));
    }
  }
  return [...found.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([p, sha256]) => ({ path: p, sha256 }));
}

/** SHA-256 of the canonical JSON of `value`, 16 hex digits (as the environment hash). */
function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted at every depth and undefined members left out, so equal definitions hash equal. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Buffer.isBuffer(value)) return JSON.stringify({ bytes: value.toString("base64") });
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Environment } from "../../src/core/model/environment";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { LoadedTask } from "../../src/core/model/environment";
import { NopPolicy } from "../../src/core/policy/nop";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { PlannedPolicy } from "../../src/core/policy/scripted";
import type { Policy } from "../../src/core/policy/types";
import { type RolloutResult, runRollout } from "../../src/core/rollout/run-rollout";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { after } from "node:test";
import { missing } from "../support/services";

/** Helpers for the code domain's integration tests: real environments, real sandboxes, the real engine. */

export const REPO = path.resolve(import.meta.dirname, "..", "..");

export function loadExample(name: string): Environment {
  const { env, problems } = loadEnvironment(path.join(REPO, "environments", name));
  const errors = problems.filter((p) => p.severity === "error");
  if (!env || errors.length > 0) throw new Error(`${name} does not load: ${errors.map((p) => p.message).join("; ")}`);
  return env;
}

export function taskById(env: Environment, id: string): LoadedTask {
  const t = env.tasks.find((x) => x.id === id);
  if (!t) throw new Error(`${env.manifest.name} has no task ${id}`);
  return t;
}

/** A policy that makes these tool calls in its first turn and submits in its second. */
export function scripted(calls: Array<{ name: string; arguments: Record<string, unknown> }>): Policy {
  return new PlannedPolicy("scripted", [
    { content: null, calls: calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) })) },
    { content: null, calls: [{ name: "submit", arguments: "{}" }] },
  ]);
}

export const oracle = (task: LoadedTask): Policy => new OraclePolicy(task.solution);
export const nop = (): Policy => new NopPolicy();

export interface Rolled extends RolloutResult {
  events: TrajectoryEvent[];
}

/** Folder for trajectories, removed by the returned cleanup. */
export function trajectoryDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-code-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let counter = 0;

export async function rollOut(env: Environment, task: LoadedTask, policy: Policy, provider: SandboxProvider, dir: string): Promise<Rolled> {
  const id = `${task.id.replace(/\//g, "_")}-${policy.kind}-${counter++}`;
  const file = path.join(dir, `${id}.jsonl`);
  const r = await runRollout({ env, task, policy, sandboxProvider: provider, file, runId: "code-tests", rolloutId: id });
  const events = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TrajectoryEvent);
  return { ...r, events };
}

export function rewardEvent(events: readonly TrajectoryEvent[]): Extract<TrajectoryEvent, { type: "reward" }> | undefined {
  return events.find((e): e is Extract<TrajectoryEvent, { type: "reward" }> => e.type === "reward");
}

export function observations(events: readonly TrajectoryEvent[]): Array<Extract<TrajectoryEvent, { type: "observation" }>> {
  return events.filter((e): e is Extract<TrajectoryEvent, { type: "observation" }> => e.type === "observation");
}

/**
 * The sandbox backends to test on here: process always (it refuses to start where nothing
 * can isolate commands, and the test then fails loudly), docker when the engine answers
 * and the sandbox image exists. The value is a skip reason or false.
 */
export async function backendSkip(backend: "process" | "docker"): Promise<string | false> {
  if (backend === "process") return false;
  const why = missing("docker") || missing("image");
  if (why) return why;
  try {
    const p = await createSandboxProvider({ backend: "docker" });
    const real = p.backend === "docker";
    await p.shutdown();
    return real ? false : "the docker backend is not available from createSandboxProvider here";
  } catch (e) {
    return `docker backend: ${(e as Error).message}`;
  }
}

/** One provider of a backend for a describe block's tests: started on first use, shut down after them. */
export function sharedProvider(backend: "process" | "docker"): () => Promise<SandboxProvider> {
  let provider: SandboxProvider | undefined;
  after(async () => {
    await provider?.shutdown();
  });
  return async () => {
    provider ??= await createSandboxProvider({ backend });
    return provider;
  };
}

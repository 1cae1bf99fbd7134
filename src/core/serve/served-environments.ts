import path from "node:path";
import { findDomain } from "../domains/registry";
import { loadEnvironment } from "../environment/load-environment";
import type { DomainPlugin } from "../model/domain";
import type { Environment, LoadedTask } from "../model/environment";
import type { SandboxProvider } from "../model/sandbox";
import type { ToolSpec } from "../policy/types";
import { rewardHash } from "../reward/reward-hash";
import { newRunId, rolloutId } from "../rollout/ids";
import { closeRunRecord, openRunRecord } from "../rollout/run-record";
import { buildToolset, type Toolset } from "../rollout/toolset";
import { ROLLOUTS_DIR } from "../runs/run-dir";
import { providerForEnvironment, type BackendName } from "../sandbox/select";
import { RunConfig, type RunRecord } from "../schema/run";
import type { ServedEnvironment, ServedEnvironments } from "./serve-context";
import { ServeError } from "./session-types";

export interface ServeLoadOptions {
  backend: BackendName;
  runsDir: string;
  unsafeNoSandbox?: boolean;
  noBuild?: boolean;
  /** Warm sandboxes kept per shape (the docker backend's pool). */
  warm?: number;
  log?: (message: string) => void;
  /** The reward definition's hash (provenance); reward/reward-hash.ts's when none is given. */
  rewardHash?: (env: Environment) => string;
}

/** One served environment: its run folder is open while the server runs, and closed at shutdown. */
class OneServed implements ServedEnvironment {
  readonly name: string;
  readonly tasks: readonly LoadedTask[];
  readonly tools: readonly ToolSpec[];
  private samples = 0;

  constructor(
    readonly dir: string,
    readonly env: Environment,
    readonly provider: SandboxProvider,
    readonly domain: DomainPlugin | null,
    readonly toolset: Toolset,
    readonly rewardHash: string,
    readonly runId: string,
    readonly runDir: string,
    private readonly record: RunRecord,
  ) {
    this.name = env.manifest.name;
    this.tasks = env.tasks;
    this.tools = toolset.specs;
  }

  nextRollout(task: LoadedTask): { rolloutId: string; sample: number; file: string } {
    // One counter per server for all tasks: a rollout id never repeats within the run folder.
    const sample = this.samples++;
    const id = rolloutId(task.id, sample);
    return { rolloutId: id, sample, file: path.join(this.runDir, ROLLOUTS_DIR, `${id}.jsonl`) };
  }

  async close(status: RunRecord["status"]): Promise<void> {
    closeRunRecord(this.runDir, this.record, status);
    await this.provider.shutdown().catch(() => {});
  }
}

/** The environments a server serves, each loaded, validated and readied once (image, documents) before it listens. */
export class ServedEnvironmentSet implements ServedEnvironments {
  private turn = 0;

  private constructor(readonly list: readonly OneServed[]) {}

  /** Loads every folder; one that does not load stops the start, naming the folder and its first errors. */
  static async load(dirs: readonly string[], o: ServeLoadOptions): Promise<ServedEnvironmentSet> {
    const served: OneServed[] = [];
    try {
      for (const dir of dirs) served.push(await loadOne(path.resolve(dir), o));
    } catch (e) {
      for (const s of served) await s.close("failed");
      throw e;
    }
    const names = served.map((s) => s.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) {
      for (const s of served) await s.close("failed");
      throw new Error(`two folders serve an environment named '${twice}': a reset could not tell them apart`);
    }
    return new ServedEnvironmentSet(served);
  }

  get(name?: string): ServedEnvironment {
    if (name === undefined) {
      const only = this.list[0];
      if (this.list.length === 1 && only) return only;
      throw new ServeError("invalid", `this server serves ${this.list.length} environments: name one (${this.names()})`, "environment");
    }
    const found = this.list.find((s) => s.name === name);
    if (!found) throw new ServeError("not_found", `no environment '${name}' here; served: ${this.names()}`, "environment");
    return found;
  }

  pickTask(served: ServedEnvironment, taskId?: string, seed?: number): LoadedTask {
    const tasks = served.tasks;
    if (taskId !== undefined) {
      const t = tasks.find((x) => x.id === taskId);
      if (!t) throw new ServeError("not_found", `no task '${taskId}' in ${served.name} (${tasks.length} tasks)`, "task_id");
      return t;
    }
    if (tasks.length === 0) throw new ServeError("not_found", `${served.name} has no tasks`, "task_id");
    // A seed always picks the same task; without one, the tasks are played in turn.
    const index = seed !== undefined ? ((seed % tasks.length) + tasks.length) % tasks.length : this.turn++ % tasks.length;
    return tasks[index] as LoadedTask;
  }

  async close(status: RunRecord["status"]): Promise<void> {
    await Promise.all(this.list.map((s) => s.close(status)));
  }

  private names(): string {
    return this.list.map((s) => s.name).join(", ");
  }
}

async function loadOne(dir: string, o: ServeLoadOptions): Promise<OneServed> {
  const { env, problems } = loadEnvironment(dir);
  const errors = problems.filter((p) => p.severity === "error");
  if (!env || errors.length > 0) {
    const first = errors
      .slice(0, 3)
      .map((p) => `${p.file}:${p.line}${p.path ? ` ${p.path}` : ""}: ${p.message}`)
      .join("; ");
    throw new Error(
      `${dir}: the environment has ${errors.length} problem${errors.length === 1 ? "" : "s"} (${first}); fix them first (rlenv validate)`,
    );
  }
  const log = o.log ?? (() => {});
  const domain = await findDomain(env.manifest.domain);
  const toolset = buildToolset(env, domain);
  // What a domain does once per environment (parsing documents) happens before the first session.
  if (domain?.prepare) await domain.prepare(env, log);
  const provider = await providerForEnvironment(env, {
    backend: o.backend,
    ...(o.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}),
    ...(o.noBuild ? { noBuild: true } : {}),
    ...(o.warm !== undefined ? { warm: o.warm } : {}),
    warn: log,
    log,
  });
  const runId = newRunId(env.manifest.name);
  const runDir = path.join(path.resolve(o.runsDir), runId);
  const config = RunConfig.parse({ policy: { kind: "served" }, sandbox: provider.backend });
  const record = openRunRecord({ env, config, runId, runDir, runsDir: o.runsDir, resumed: null });
  return new OneServed(dir, env, provider, domain, toolset, o.rewardHash?.(env) ?? rewardHash(env), runId, runDir, record);
}

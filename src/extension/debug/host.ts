import { mkdirSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { LoadedTask } from "../../core/model/environment";
import type { RolloutDebugger } from "../../core/debug/controller";
import type { Policy } from "../../core/policy/types";
import { rolloutId } from "../../core/rollout/ids";
import type { ExtensionCtx } from "../context";
import { createHumanPolicy } from "../human/index";
import { loadEngine, runsDirFor } from "../rollouts/engine";
import type { DebugHost, LaunchedRollout } from "./adapter";
import type { LaunchArgs } from "./launch-args";
import { dropFork, putFork, takeFork } from "./prepared-forks";

const stamp = () => new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");

/** The loaded environment at `dir` (a folder or its environment.yaml), or an error saying what to fix. */
export function environmentAt(ctx: ExtensionCtx, dir: string): Environment {
  const envDir = path.basename(dir) === "environment.yaml" ? path.dirname(dir) : dir;
  const entry = ctx.environments.get(envDir);
  if (!entry) throw new Error(`no environment at ${envDir}: 'environment' must be a folder with an environment.yaml in this workspace`);
  const errors = entry.result.problems.filter((p) => p.severity === "error").length;
  if (!entry.result.env || errors > 0)
    throw new Error(`${entry.label} has ${errors} problem${errors === 1 ? "" : "s"}: fix them first (see the Problems panel)`);
  return entry.result.env;
}

/** A policy and what to do once its rollout ended (the human's panel shows the outcome). */
export interface SessionPolicy {
  policy: Policy;
  ended?(r: { status: string; reward: number | null; reason?: string; file: string }): void;
}

/** A fresh policy for a debug session or a fork: oracle, nop, human (Play panel), replay:FILE, model (settings, with overrides). */
export async function policyFor(
  ctx: ExtensionCtx,
  spec: string,
  env: Environment,
  task: LoadedTask,
  sample: number,
  over: { model?: string; baseUrl?: string; seed?: number } = {},
): Promise<SessionPolicy> {
  const engine = loadEngine();
  if (spec === "oracle" || spec === "nop") return { policy: engine.createPolicy({ config: { kind: spec }, task, sample }) };
  if (spec.startsWith("replay:"))
    return { policy: engine.createPolicy({ config: { kind: "replay", replay: spec.slice("replay:".length) }, task, sample }) };
  if (spec === "human") {
    const human = createHumanPolicy(ctx, env, task);
    return { policy: human, ended: (r) => human.panel.finish(r, r.status === "error" || r.status === "cancelled" ? r.reason : undefined) };
  }
  const configured = ctx.settings.policy();
  const model = over.model ?? (configured.ok ? configured.policy.model : undefined);
  const baseURL = over.baseUrl ?? (configured.ok ? configured.policy.base_url : undefined);
  if (!model || !baseURL)
    throw new Error(
      `policy 'model' needs a model and base URL: ${configured.ok ? "" : configured.reason}; or set 'model' and 'baseUrl' in the launch configuration`,
    );
  const { seed: _seed, ...settings } = configured.ok ? configured.policy : { kind: "openai" as const };
  // SecretStorage first, then the environment (local servers accept any key).
  const apiKey = (await ctx.settings.apiKey()) || undefined;
  const config = {
    ...settings,
    kind: "openai" as const,
    model,
    base_url: baseURL,
    ...(over.seed !== undefined ? { seed: over.seed } : {}),
  };
  const policy = engine.createPolicy({ config, task, sample, ...(apiKey ? { apiKey } : {}) });
  return { policy };
}

/** The task of this id, or an error naming the environment's tasks (the first dozen). */
function taskIn(env: Environment, id: string): LoadedTask {
  const task = env.tasks.find((t) => t.id === id);
  if (task) return task;
  throw new Error(
    `${env.manifest.name} has no task '${id}'; its tasks: ${env.tasks
      .slice(0, 12)
      .map((t) => t.id)
      .join(", ")}${env.tasks.length > 12 ? ", …" : ""}`,
  );
}

/** A new debug session's rollout: its policy, its sandbox provider (the one backend choice of `rlenv run`), its trajectory file. */
async function launchRollout(ctx: ExtensionCtx, args: LaunchArgs): Promise<LaunchedRollout> {
  if (args.forkId) return takeFork(args.forkId);
  const env = environmentAt(ctx, args.environment);
  const task = taskIn(env, args.task);
  const { policy, ended } = await policyFor(ctx, args.policy, env, task, args.sample, {
    ...(args.model ? { model: args.model } : {}),
    ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
    ...(args.seed !== undefined ? { seed: args.seed } : {}),
  });
  const engine = loadEngine();
  const provider = await engine.providerForEnvironment(env, {
    backend: args.sandbox ?? ctx.settings.sandboxBackend(),
    warm: 0,
    warn: (m) => ctx.log.warn(m),
    log: (m) => ctx.log.info(m),
  });
  const dir = path.join(runsDirFor(ctx, env), "debug");
  mkdirSync(dir, { recursive: true });
  const id = rolloutId(task.id, args.sample);
  const file = path.join(dir, `${id}-${stamp()}.jsonl`);
  ctx.log.info(`debug ${env.manifest.name}/${task.id}: policy ${args.policy}, sandbox ${provider.backend}, trajectory ${file}`);
  const d = new engine.RolloutDebugger({
    env,
    task,
    policy,
    sandboxProvider: provider,
    file,
    runId: `debug-${stamp()}`,
    rolloutId: id,
    sample: args.sample,
    ...(args.seed !== undefined ? { seed: args.seed } : {}),
    stopOnEntry: args.stopOnEntry,
    pauseBeforePolicy: args.pauseBeforePolicy,
    pauseAtEnd: args.pauseAtEnd,
  });
  if (ended) d.onEnded((r) => ended({ ...r, file }));
  return { debugger: d, env, task, label: `${env.manifest.name} · ${task.id}`, dispose: () => provider.shutdown() };
}

/** A fork run to its end inside the parent session: its trajectory file and outcome. */
async function forkToEnd(ctx: ExtensionCtx, from: LaunchedRollout, spec: string) {
  const { policy, ended } = await policyFor(ctx, spec, from.env, from.task, from.debugger.options.sample ?? 0);
  const base = from.debugger.file.replace(/\.jsonl$/, "");
  const file = `${base}.fork-${spec}-${stamp()}.jsonl`;
  const forked = await from.debugger.fork({ policy, file, rolloutId: `${from.debugger.options.rolloutId}.fork` });
  ctx.log.info(`fork of ${from.label} with ${spec}: ${file}`);
  const r = await forked.start();
  ended?.({ ...r, file });
  return { file, status: r.status, reward: r.reward };
}

/** A fork stopped on entry, held under an id until its own debug session takes it (launchRollout's forkId). */
async function preparedFork(ctx: ExtensionCtx, from: LaunchedRollout, spec: string) {
  const { policy, ended } = await policyFor(ctx, spec, from.env, from.task, from.debugger.options.sample ?? 0);
  const engine = loadEngine();
  // Its own provider: the fork's sandbox outlives the parent session (whose end shuts the parent's provider down).
  const provider = await engine.createSandboxProvider({
    backend: from.debugger.options.sandboxProvider.backend,
    warm: 0,
    warn: (m) => ctx.log.warn(m),
  });
  const file = `${from.debugger.file.replace(/\.jsonl$/, "")}.fork-${spec}-${stamp()}.jsonl`;
  let forked: RolloutDebugger;
  try {
    forked = await from.debugger.fork({
      policy,
      file,
      rolloutId: `${from.debugger.options.rolloutId}.fork`,
      sandboxProvider: provider,
      stopOnEntry: true,
      pauseAtEnd: true,
    });
  } catch (e) {
    await provider.shutdown();
    throw e;
  }
  if (ended) forked.onEnded((r) => ended({ ...r, file }));
  const label = `${from.label} · fork (${spec})`;
  return { file, forkId: putFork({ debugger: forked, env: from.env, task: from.task, label, dispose: () => provider.shutdown() }) };
}

/** The editor's side of one debug session: builds the rollout, forks it, marks it live. */
export function debugHost(ctx: ExtensionCtx, session: vscode.DebugSession): DebugHost {
  return {
    launch: (args: LaunchArgs) => launchRollout(ctx, args),
    fork: (from: LaunchedRollout, spec: string) => forkToEnd(ctx, from, spec),

    async forkSession(from: LaunchedRollout, spec: string) {
      const { file, forkId } = await preparedFork(ctx, from, spec);
      const config: vscode.DebugConfiguration = {
        type: "rlenv",
        request: "launch",
        name: `Fork of ${from.task.id} with ${spec}`,
        environment: from.env.dir,
        task: from.task.id,
        policy: spec,
        forkId,
      };
      ctx.log.info(`fork of ${from.label} with ${spec} as a debug session: ${file}`);
      const started = await vscode.debug.startDebugging(session.workspaceFolder, config, { parentSession: session });
      if (!started) {
        await dropFork(forkId);
        throw new Error("the fork's debug session did not start");
      }
      return { file, forkId };
    },

    live(r: LaunchedRollout) {
      const reg = ctx.live.add({ id: session.id, label: r.label, sandbox: () => r.debugger.sandbox() });
      return () => reg.dispose();
    },
  };
}

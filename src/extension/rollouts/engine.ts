import { existsSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { TaskVerdict } from "../../core/app/verdict";
import type { RunProgress } from "../../core/rollout/run-environment";
import { type PolicyConfig, RunConfig, type RunSummary } from "../../core/schema/run";
import type { ExtensionCtx } from "../context";
import { outcomeOf, type TaskOutcome } from "./outcome";

/** A finished run started from the editor. */
export interface EngineRun {
  runDir: string;
  outcomes: TaskOutcome[];
  summary: RunSummary;
}

export interface EngineOptions {
  tasks?: string[];
  k?: number;
  signal: AbortSignal;
  /** Each finished rollout, as it finishes. */
  onOutcome?: (o: TaskOutcome) => void;
}

type Engine = typeof import("./engine-bundle");
let engine: Engine | undefined;

/** The engine bundle beside this one (dist/extension-engine.js), required on first use. */
export function loadEngine(): Engine {
  if (engine) return engine;
  const bundled = path.join(__dirname, "extension-engine.js");
  if (!existsSync(bundled)) throw new Error(`the rollout engine bundle is missing (${bundled}): run npm run build`);
  engine = require(bundled) as Engine;
  return engine;
}

/** Where runs of this environment go: the runs folder of its workspace folder. */
export function runsDirFor(ctx: ExtensionCtx, env: Environment): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(env.dir)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder ? ctx.settings.runsDir(folder).fsPath : path.join(env.dir, "runs");
}

/** The engine's progress as the editor's log lines and outcomes. */
function progressTo(ctx: ExtensionCtx, outcomes: TaskOutcome[], onOutcome?: (o: TaskOutcome) => void): (e: RunProgress) => void {
  return (e) => {
    if (e.type === "rollout-end") {
      const o = outcomeOf(e);
      outcomes.push(o);
      ctx.log.info(`  ${o.task}#${o.sample} ${o.status} reward ${o.reward ?? "–"}${o.failure ? ` — ${o.failure}` : ""}`);
      onOutcome?.(o);
    } else if (e.type === "log") ctx.log.info(`  ${e.message}`);
  };
}

/**
 * Runs a policy on an environment in-process with the core engine (the same code as
 * `rlenv run`). The engine is imported on first use so activation never loads it.
 */
export async function runPolicy(ctx: ExtensionCtx, env: Environment, policy: PolicyConfig, opts: EngineOptions): Promise<EngineRun> {
  const config = RunConfig.parse({
    policy,
    ...(opts.tasks ? { tasks: opts.tasks } : {}),
    k: opts.k ?? 1,
    concurrency: ctx.settings.concurrency(),
    sandbox: ctx.settings.sandboxBackend(),
  });
  const outcomes: TaskOutcome[] = [];
  // The key lives in SecretStorage, not in the environment variables the CLI reads.
  const apiKey = policy.kind === "openai" ? (await ctx.settings.apiKey()) || undefined : undefined;
  ctx.log.info(
    `run ${env.manifest.name}: policy ${policy.kind}${policy.model ? ` ${policy.model}` : ""}, tasks ${opts.tasks?.join(", ") ?? "all"}, sandbox ${config.sandbox}`,
  );
  const res = await loadEngine().runRollouts({
    env,
    config,
    runsDir: runsDirFor(ctx, env),
    signal: opts.signal,
    ...(apiKey ? { apiKey } : {}),
    onProgress: progressTo(ctx, outcomes, opts.onOutcome),
  });
  ctx.runs.refresh();
  return { runDir: res.runDir, outcomes, summary: res.summary };
}

/**
 * Validates tasks by rollouts, oracle and nop together (the same rule and code as
 * `rlenv validate --run`): the verdicts, and each rollout's outcome for the views.
 */
export async function validateWithEngine(
  ctx: ExtensionCtx,
  env: Environment,
  tasks: string[] | undefined,
  signal: AbortSignal,
): Promise<{ verdicts: TaskVerdict[]; outcomes: Record<"oracle" | "nop", TaskOutcome[]>; runDirs: string[] }> {
  const outcomes: Record<"oracle" | "nop", TaskOutcome[]> = { oracle: [], nop: [] };
  const sinks = { oracle: progressTo(ctx, outcomes.oracle), nop: progressTo(ctx, outcomes.nop) };
  ctx.log.info(`validate ${env.manifest.name}: tasks ${tasks?.join(", ") ?? "all"}, sandbox ${ctx.settings.sandboxBackend()}`);
  const res = await loadEngine().validateEnvironment({
    env,
    runsDir: runsDirFor(ctx, env),
    concurrency: ctx.settings.concurrency(),
    sandbox: ctx.settings.sandboxBackend(),
    signal,
    ...(tasks ? { tasks } : {}),
    onProgress: (kind, e) => sinks[kind](e),
  });
  ctx.runs.refresh();
  return { verdicts: res.tasks, outcomes, runDirs: [res.oracle.runDir, res.nop.runDir] };
}

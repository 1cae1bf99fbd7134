import { existsSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/environment/load-environment";
import { type PolicyConfig, RunConfig, type RunSummary } from "../../core/schema/run";
import type { ExtensionCtx } from "../context";
import type { TaskOutcome } from "./judge";

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

/**
 * Runs a policy on an environment in-process with the core engine (the same code as
 * `rlenv run`). The engine is imported on first use so activation never loads it.
 */
export async function runPolicy(ctx: ExtensionCtx, env: Environment, policy: PolicyConfig, opts: EngineOptions): Promise<EngineRun> {
  const { runEnvironment, OpenAIPolicy } = loadEngine();
  const config = RunConfig.parse({
    policy,
    ...(opts.tasks ? { tasks: opts.tasks } : {}),
    k: opts.k ?? 1,
    concurrency: ctx.settings.concurrency(),
    sandbox: ctx.settings.sandboxBackend(),
  });
  const outcomes: TaskOutcome[] = [];
  const apiKey = policy.kind === "openai" ? await ctx.settings.apiKey() : undefined;
  ctx.log.info(
    `run ${env.manifest.name}: policy ${policy.kind}${policy.model ? ` ${policy.model}` : ""}, tasks ${opts.tasks?.join(", ") ?? "all"}, sandbox ${config.sandbox}`,
  );
  const res = await runEnvironment({
    env,
    config,
    runsDir: runsDirFor(ctx, env),
    signal: opts.signal,
    // The key lives in SecretStorage, not in the environment variables the CLI reads.
    ...(apiKey && policy.kind === "openai" && policy.model && policy.base_url
      ? {
          policyFactory: ({ sample }) =>
            new OpenAIPolicy({
              baseURL: policy.base_url ?? "",
              model: policy.model ?? "",
              apiKey,
              ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
              ...(policy.top_p !== undefined ? { topP: policy.top_p } : {}),
              ...(policy.max_tokens !== undefined ? { maxTokens: policy.max_tokens } : {}),
              ...(policy.seed !== undefined ? { seed: policy.seed + sample } : {}),
            }),
        }
      : {}),
    onProgress: (e) => {
      if (e.type === "rollout-end") {
        const o: TaskOutcome = {
          task: e.task,
          sample: e.sample,
          status: e.status,
          reward: e.reward,
          file: e.file,
          ...(e.failure ? { failure: e.failure } : {}),
        };
        outcomes.push(o);
        ctx.log.info(`  ${o.task}#${o.sample} ${o.status} reward ${o.reward ?? "–"}${o.failure ? ` — ${o.failure}` : ""}`);
        opts.onOutcome?.(o);
      } else if (e.type === "log") ctx.log.info(`  ${e.message}`);
    },
  });
  ctx.runs.refresh();
  return { runDir: res.runDir, outcomes, summary: res.summary };
}

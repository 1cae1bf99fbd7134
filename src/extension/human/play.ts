import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { LoadedTask } from "../../core/model/environment";
import { RunConfig } from "../../core/schema/run";
import type { ExtensionCtx } from "../context";
import { resolveTarget } from "../environments/target";
import { loadEngine, runsDirFor } from "../rollouts/engine";
import { type PlayResult, PlayPanel } from "./panel";

/** What the command returns: the panel and its policy, and the rollout's end (the extension-host tests drive it). */
export interface PlaySession {
  panel: PlayPanel;
  /** The finished rollout (its trajectory file), or null when it could not run. */
  done: Promise<PlayResult | null>;
}

/** A person thinks slower than a model: the manifest's rollout timeout would end the game mid-move. */
const HUMAN_ROLLOUT_TIMEOUT_S = 24 * 3600;

function forHuman(env: Environment): Environment {
  const s = env.manifest.sandbox;
  return {
    ...env,
    manifest: {
      ...env.manifest,
      sandbox: { ...s, timeouts: { ...s.timeouts, rollout: Math.max(s.timeouts.rollout, HUMAN_ROLLOUT_TIMEOUT_S) } },
    },
  };
}

/** The environment of the target if it loads without errors, else undefined after saying what to fix. */
function loadedEnv(ctx: ExtensionCtx, envDir: string): Environment | undefined {
  const entry = ctx.environments.get(envDir);
  const env = entry?.result.env;
  const errors = entry?.result.problems.filter((p) => p.severity === "error").length ?? 0;
  if (!env || errors > 0) {
    void vscode.window.showErrorMessage(
      `${entry?.label ?? envDir} has ${errors} problem${errors === 1 ? "" : "s"}: fix them first (see the Problems panel).`,
    );
    return undefined;
  }
  return env;
}

async function pickTask(env: Environment, taskId: string | undefined): Promise<LoadedTask | undefined> {
  if (taskId) {
    const t = env.tasks.find((x) => x.id === taskId);
    if (!t) void vscode.window.showErrorMessage(`${env.manifest.name} has no task '${taskId}'.`);
    return t;
  }
  if (env.tasks.length === 1) return env.tasks[0];
  const pick = await vscode.window.showQuickPick(
    env.tasks.map((t) => ({ label: t.id, detail: t.prompt.slice(0, 200), task: t })),
    { placeHolder: `Which task of ${env.manifest.name} do you want to play?`, matchOnDetail: true },
  );
  return pick?.task;
}

/**
 * "Play Task": the user is the agent. A real rollout (the run engine, the environment's
 * sandbox backend from the settings, the verifiers) whose policy is the panel; the
 * trajectory lands in the runs folder and opens in the viewer at the end.
 */
export async function playTaskCommand(ctx: ExtensionCtx, arg: unknown): Promise<PlaySession | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  const env = target && loadedEnv(ctx, target.envDir);
  const task = env && (await pickTask(env, target?.taskId));
  if (!env || !task) return undefined;
  const panel = new PlayPanel(ctx.extension, ctx.log, env, task);
  const abort = new AbortController();
  panel.onDidStop(() => abort.abort(new Error("cancelled by the user")));
  const done = play(ctx, env, task, panel, abort.signal);
  return { panel, done };
}

async function play(
  ctx: ExtensionCtx,
  env: Environment,
  task: LoadedTask,
  panel: PlayPanel,
  signal: AbortSignal,
): Promise<PlayResult | null> {
  let liveSub: vscode.Disposable | undefined;
  try {
    const { runEnvironment } = loadEngine();
    const config = RunConfig.parse({
      policy: { kind: "human" },
      tasks: [task.id],
      k: 1,
      concurrency: 1,
      sandbox: ctx.settings.sandboxBackend(),
    });
    let result: PlayResult | null = null;
    let rolloutId = "";
    let runId = "";
    ctx.log.info(`play ${env.manifest.name} / ${task.id} by hand (sandbox ${config.sandbox})`);
    await runEnvironment({
      env: forHuman(env),
      config,
      runsDir: runsDirFor(ctx, env),
      signal,
      // A person's moves are not retried: an infra failure ends the game with its reason.
      maxInfraAttempts: 1,
      policyFactory: () => panel.policy,
      hooks: {
        // While the person plays, the sandbox is live: the sandbox terminal and files reach it.
        beforePolicyCall: async ({ sandbox }) => {
          // Rollout ids repeat across runs (task.sample): the run's own id keeps two games apart.
          liveSub ??= ctx.live.add({ id: `play:${runId}:${rolloutId}`, label: `${env.manifest.name} · ${task.id} (played)`, sandbox });
          // The last move changed the workdir: open sandbox files show it as it is now.
          void vscode.commands.executeCommand("rlenv.debug.refreshSandboxFiles");
        },
      },
      onProgress: (e) => {
        if (e.type === "rollout-start") {
          rolloutId = e.rolloutId;
          runId = path.basename(path.dirname(path.dirname(e.file)));
        }
        if (e.type === "rollout-end")
          result = { status: e.status, reward: e.reward, file: e.file, ...(e.reason ? { reason: e.reason } : {}) };
        if (e.type === "log") ctx.log.info(`  ${e.message}`);
      },
    });
    liveSub?.dispose();
    liveSub = undefined;
    ctx.runs.refresh();
    const r = result as PlayResult | null;
    panel.finish(r, r?.status === "error" || r?.status === "cancelled" ? r.reason : undefined);
    if (r) {
      ctx.log.info(`play ${task.id}: ${r.status}, reward ${r.reward ?? "–"} (${r.file})`);
      if (r.status !== "cancelled") await vscode.commands.executeCommand("rlenv.openTrajectory", vscode.Uri.file(r.file));
    }
    return r;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    ctx.log.error(`play ${task.id} failed: ${e instanceof Error && e.stack ? e.stack : message}`);
    panel.finish(null, `The rollout could not run: ${message}`);
    return null;
  } finally {
    liveSub?.dispose();
  }
}

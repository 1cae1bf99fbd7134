import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import { resolveTarget, type Target } from "../environments/target";
import type { TaskValidation } from "./outcome";
import type { TaskRollout } from "./rollout";

/** The loaded environment of a target, or undefined after telling the user what to fix. */
function loadedEnv(ctx: ExtensionCtx, target: Target): Environment | undefined {
  const entry = ctx.environments.get(target.envDir);
  const env = entry?.result.env;
  const errors = entry?.result.problems.filter((p) => p.severity === "error").length ?? 0;
  if (!env || errors > 0) {
    void vscode.window.showErrorMessage(
      `${entry?.label ?? target.envDir} has ${errors} problem${errors === 1 ? "" : "s"}: fix them first (see the Problems panel).`,
    );
    return undefined;
  }
  if (target.taskId && !env.tasks.some((t) => t.id === target.taskId)) {
    void vscode.window.showErrorMessage(`${env.manifest.name} has no task '${target.taskId}'.`);
    return undefined;
  }
  return env;
}

/** Runs long work under a cancellable notification; the token aborts the engine (sandboxes closed). */
function withCancellableProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_progress, token) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error("cancelled by the user")));
    return work(abort.signal).finally(() => sub.dispose());
  });
}

export async function validateCommand(ctx: ExtensionCtx, arg: unknown): Promise<TaskValidation[] | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  const env = target && loadedEnv(ctx, target);
  if (!target || !env) return undefined;
  const tasks = target.taskId ? [target.taskId] : undefined;
  const { validateTasks } = await import("./validate");
  // The same verdicts reach the Test Explorer, as a run of its own.
  const testRun = ctx.testRuns?.beginValidation(target.envDir, tasks);
  let cancelled = false;
  const { validations } = await withCancellableProgress(
    `Validating ${env.manifest.name}${target.taskId ? ` / ${target.taskId}` : ""}`,
    (signal) => {
      signal.addEventListener("abort", () => (cancelled = true));
      return validateTasks(ctx, env, tasks, signal);
    },
  ).then(
    (r) => {
      testRun?.validated(r.validations);
      return r;
    },
    (e: unknown) => {
      testRun?.failed(e instanceof Error ? e.message : String(e), cancelled);
      throw e;
    },
  );
  const failed = validations.filter((v) => !v.passed);
  if (failed.length === 0)
    void vscode.window.showInformationMessage(
      `${env.manifest.name}: ${validations.length} task${validations.length === 1 ? "" : "s"} valid (oracle passes, nop fails).`,
    );
  else
    void vscode.window.showWarningMessage(
      `${env.manifest.name}: ${failed.length} of ${validations.length} failed validation — ${failed.map((v) => `${v.task}: ${v.reason}`).join("; ")}`,
    );
  return validations;
}

export async function rolloutCommand(ctx: ExtensionCtx, arg: unknown): Promise<TaskRollout[] | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  const env = target && loadedEnv(ctx, target);
  if (!target || !env) return undefined;
  const policy = ctx.settings.policy();
  if (!policy.ok) {
    // Not awaited: the command returns now; the notification's promise settles only when someone closes it.
    const open = "Open Settings";
    void vscode.window.showWarningMessage(`Cannot roll out: ${policy.reason}.`, open).then((c) => {
      if (c === open) void vscode.commands.executeCommand("rlenv.openSettings");
    });
    return undefined;
  }
  const { rolloutTasks } = await import("./rollout");
  const tasks = target.taskId ? [target.taskId] : undefined;
  const { rollouts, runDir } = await withCancellableProgress(`Rolling out ${policy.policy.model} on ${env.manifest.name}`, (signal) =>
    rolloutTasks(ctx, env, tasks, signal),
  );
  const mean = rollouts.reduce((s, r) => s + (r.reward ?? 0), 0) / Math.max(1, rollouts.length);
  const open = "Open Dashboard";
  void vscode.window
    .showInformationMessage(
      `${env.manifest.name}: mean reward ${mean.toFixed(2)} over ${rollouts.length} task${rollouts.length === 1 ? "" : "s"}.`,
      open,
    )
    .then((c) => {
      if (c === open) void vscode.commands.executeCommand("rlenv.openRun", runDir);
    });
  return rollouts;
}

/** The Debug CodeLens and Test Explorer profile: the rollout debugger's one-click start. */
export async function debugCommand(ctx: ExtensionCtx, arg: unknown): Promise<unknown> {
  const target = await resolveTarget(arg, ctx.environments);
  if (!target) return undefined;
  return vscode.commands.executeCommand("rlenv.debugTask", target);
}

/** Calibrates the environment's reward against a labels file (the environment's context menu). */
export async function calibrateCommand(ctx: ExtensionCtx, arg: unknown): Promise<string | undefined> {
  const target = await resolveTarget(arg, ctx.environments);
  const env = target && loadedEnv(ctx, target);
  if (!env) return undefined;
  const { calibrateEnv } = await import("./calibrate");
  return withCancellableProgress(`Calibrating ${env.manifest.name} against human labels`, (signal) => calibrateEnv(ctx, env, signal));
}

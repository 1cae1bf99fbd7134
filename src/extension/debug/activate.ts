import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { CommandSpec } from "../commands/table";
import type { ExtensionCtx } from "../context";
import { loadEngine } from "../rollouts/engine";
import { resolveTarget, type Target } from "../environments/target";
import { RolloutConfigurationProvider, taskConfiguration } from "./configurations";
import { debugHost, environmentAt } from "./host";

/** The active `rlenv` debug session, or undefined after telling the user. */
function activeSession(): vscode.DebugSession | undefined {
  const s = vscode.debug.activeDebugSession;
  if (s?.type === "rlenv") return s;
  void vscode.window.showInformationMessage("No rollout is being debugged: start one with the Debug CodeLens on a task.");
  return undefined;
}

/** `rlenv.debugTask`: one click from the CodeLens or Test Explorer to a paused rollout. */
async function debugTask(ctx: ExtensionCtx, arg: unknown): Promise<boolean> {
  const target: Target | undefined = await resolveTarget(arg, ctx.environments);
  if (!target) return false;
  let env: Environment;
  try {
    env = environmentAt(ctx, target.envDir);
  } catch (e) {
    void vscode.window.showErrorMessage(`Cannot debug: ${(e as Error).message}.`);
    return false;
  }
  const taskId =
    target.taskId ??
    (env.tasks.length === 1
      ? env.tasks[0]?.id
      : await vscode.window.showQuickPick(
          env.tasks.map((t) => t.id),
          { placeHolder: `Which task of ${env.manifest.name}?` },
        ));
  if (!taskId) return false;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(target.envDir));
  return vscode.debug.startDebugging(folder, taskConfiguration(ctx, target.envDir, taskId));
}

/** Opens the pending call's arguments as JSON in an input box and sends the edit. */
async function editPendingCall(): Promise<void> {
  const s = activeSession();
  if (!s) return;
  const state = (await s.customRequest("state")) as { pending: { name: string; arguments: unknown } | null };
  if (!state.pending) {
    void vscode.window.showInformationMessage("The rollout is not paused before a tool call: nothing to edit.");
    return;
  }
  const text = await vscode.window.showInputBox({
    title: `Edit the arguments of ${state.pending.name}`,
    value: JSON.stringify(state.pending.arguments),
    validateInput: (v) => {
      try {
        const a = JSON.parse(v) as unknown;
        return a && typeof a === "object" && !Array.isArray(a) ? undefined : "the arguments must be a JSON object";
      } catch (e) {
        return `not JSON: ${(e as Error).message}`;
      }
    },
  });
  if (text === undefined) return;
  await s.customRequest("editPendingCall", { arguments: JSON.parse(text) });
}

/**
 * Forks the paused rollout with another policy into a child debug session, stopped on entry,
 * so the fork is stepped through with the same UI. `policy` skips the pick (tests, keybindings).
 */
async function fork(ctx: ExtensionCtx, policy?: unknown): Promise<{ file: string; forkId: string } | undefined> {
  const s = activeSession();
  if (!s) return undefined;
  let spec = typeof policy === "string" ? policy : undefined;
  if (!spec) {
    const model = ctx.settings.policy();
    const picks = [
      { label: "oracle", description: "the task's reference solution" },
      ...(model.ok ? [{ label: "model", description: model.policy.model }] : []),
      { label: "human", description: "play the rest yourself in the Play panel" },
      { label: "nop", description: "submits at once" },
    ];
    spec = (
      await vscode.window.showQuickPick(picks, {
        placeHolder: "Continue this rollout's state with which policy? (it opens as a new debug session)",
      })
    )?.label;
  }
  if (!spec) return undefined;
  const label = spec;
  try {
    return (await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Forking the rollout with ${label}` },
      () => s.customRequest("fork", { policy: label, mode: "session" }),
    )) as { file: string; forkId: string };
  } catch (e) {
    void vscode.window.showErrorMessage(`Cannot fork: ${(e as Error).message}`);
    return undefined;
  }
}

/**
 * Publishes the workspace's task files as the `rlenv.taskFiles` context key: package.json offers
 * breakpoints where `resourcePath in rlenv.taskFiles`, so the gutter of every other JSON, JSONL and
 * YAML file stays as it was.
 */
function publishTaskFiles(ctx: ExtensionCtx): string[] {
  const files = [...new Set(ctx.environments.list().flatMap((e) => e.result.env?.tasks.map((t) => t.source.file) ?? []))];
  void vscode.commands.executeCommand("setContext", "rlenv.taskFiles", files);
  return files;
}

/** The language package.json gives the paused rollout's readable source: its long lines wrap (configurationDefaults). */
export const ROLLOUT_LANGUAGE = "rlenv-rollout";

/** The adapter's readable rollout (frames.ts names its source "rollout TASK"; it has no file, so the editor shows it as debug:). */
function showAsRollout(doc: vscode.TextDocument): void {
  if (doc.uri.scheme === "debug" && doc.uri.path.startsWith("rollout ") && doc.languageId !== ROLLOUT_LANGUAGE)
    void vscode.languages.setTextDocumentLanguage(doc, ROLLOUT_LANGUAGE);
}

/** The rollout debugger: the `rlenv` debug type (inline adapter) and its configurations; returns its commands for the table. */
export function activateDebugger(ctx: ExtensionCtx): CommandSpec[] {
  const provider = new RolloutConfigurationProvider(ctx);
  void ctx.environments.ready().then(() => publishTaskFiles(ctx));
  ctx.extension.subscriptions.push(
    ctx.environments.onDidChange(() => publishTaskFiles(ctx)),
    vscode.workspace.onDidOpenTextDocument(showAsRollout),
    vscode.debug.registerDebugConfigurationProvider("rlenv", provider),
    // Listed in the Run and Debug dropdown; a separate object so its resolve is not run twice.
    vscode.debug.registerDebugConfigurationProvider(
      "rlenv",
      { provideDebugConfigurations: () => provider.provideDebugConfigurations() },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory("rlenv", {
      createDebugAdapterDescriptor: (session) =>
        new vscode.DebugAdapterInlineImplementation(new (loadEngine().RolloutDebugSession)(debugHost(ctx, session))),
    }),
  );
  return [
    { id: "rlenv.debugTask", executes: "debug a rollout", refused: false, run: (c, arg) => debugTask(c, arg) },
    { id: "rlenv.debug.editPendingCall", run: () => editPendingCall() },
    { id: "rlenv.debug.fork", run: (c, policy) => fork(c, policy) },
  ];
}

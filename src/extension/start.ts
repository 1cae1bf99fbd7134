import path from "node:path";
import * as vscode from "vscode";
import { ReferenceHovers } from "./authoring/reference-hover";
import { EnvironmentCodeLens } from "./codelens/provider";
import { COMMAND_SPECS } from "./commands/all";
import { activateDebugger } from "./debug/activate";
import { LiveRollouts } from "./debug/live-rollouts";
import { type CommandSpec, registerCommands } from "./commands/table";
import type { ExtensionCtx } from "./context";
import { TASK_TOML, TaskTomlCompletion, TaskTomlHover } from "./authoring/task-toml";
import { EnvironmentDiagnostics } from "./diagnostics/collection";
import { ProblemQuickFixes } from "./diagnostics/quick-fixes";
import { EnvironmentIndex } from "./environments/index";
import { EnvironmentsTree } from "./environments/tree";
import { ResultsStore } from "./rollouts/results";
import { RunsTree } from "./runs/tree";
import { Settings } from "./settings/settings";
import { StatusBar } from "./status/status-bar";
import { activateTestExplorer, type TestExplorer } from "./tests/controller";
import { activateRunners } from "./runners/activate";
import type { RunnersTree } from "./runners/tree";
import { activateLiveSandbox } from "./sandbox-live/activate";
import { activateViewer } from "./viewer/activate";
import { servedRequests } from "./viewer/webview-host";

/** What `activate` returns: the shared context and the Test Explorer, for the extension-host suites. */
export interface ExtensionApi {
  ctx: ExtensionCtx;
  tests: TestExplorer;
  /** Every command the extension registers, from the one command table (commands/table.ts). */
  commands: readonly CommandSpec[];
  /** Milliseconds start-up took (activation budget: 100 ms). */
  startMs: number;
  /** The requests the viewer's host answered for a shown file, each as `method {params as JSON}` (the webview drew from them). */
  viewerRequests(file: string): readonly string[];
  /** Files start-up required beyond the extension bundle (the rollout engine and node_modules must not be among them). */
  requiredAtStart: string[];
  /** The Runners view (runners, pools and their members' health). */
  runners: RunnersTree;
}

/** Files the editor features look at: manifests, JSONL task sets and task folders' task.yaml/json. */
const ENVIRONMENT_FILES: vscode.DocumentSelector = [
  { scheme: "file", pattern: "**/environment.yaml" },
  { scheme: "file", pattern: "**/*.jsonl" },
  { scheme: "file", pattern: "**/task.{yaml,yml,json}" },
];

/** The manifests whose keys have hovers from the reference: environment.yaml and task folders' task.yaml. */
const MANIFEST_FILES: vscode.DocumentSelector = [
  { scheme: "file", pattern: "**/environment.yaml" },
  { scheme: "file", pattern: "**/task.{yaml,yml}" },
];

/** Builds the extension's features; reports its own start-up failure (VS Code shows none). */
export async function startExtension(context: vscode.ExtensionContext): Promise<ExtensionApi | undefined> {
  const started = performance.now();
  const before = new Set(Object.keys(require.cache));
  const log = vscode.window.createOutputChannel("RL Env Studio", { log: true });
  context.subscriptions.push(log);
  try {
    const ctx = buildContext(context, log);
    const { tests, commands, runners } = activateFeatures(ctx);
    const startMs = performance.now() - started;
    log.info(
      `RL Env Studio started in ${startMs.toFixed(1)} ms (workspace ${vscode.workspace.isTrusted ? "trusted" : "not trusted: nothing is executed"})`,
    );
    const requiredAtStart = Object.keys(require.cache).filter((f) => !before.has(f));
    const viewerRequests = (file: string) => servedRequests.get(path.resolve(file)) ?? [];
    return { ctx, tests, commands, startMs, requiredAtStart, viewerRequests, runners };
  } catch (e) {
    log.error(`start-up failed: ${e instanceof Error && e.stack ? e.stack : String(e)}`);
    void vscode.window.showErrorMessage(
      `RL Env Studio failed to start: ${e instanceof Error ? e.message : String(e)}. See the "RL Env Studio" output.`,
    );
    return undefined;
  }
}

function buildContext(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ExtensionCtx {
  const settings = new Settings(context.secrets);
  const environments = new EnvironmentIndex(log);
  const results = new ResultsStore(context.workspaceState);
  const runs = new RunsTree(settings);
  const live = new LiveRollouts();
  context.subscriptions.push(environments, results, runs, live);
  return { extension: context, log, settings, environments, results, runs, live };
}

function activateFeatures(ctx: ExtensionCtx): { tests: TestExplorer; commands: CommandSpec[]; runners: RunnersTree } {
  const subs = ctx.extension.subscriptions;
  const diagnostics = new EnvironmentDiagnostics(ctx.environments);
  const environmentsTree = new EnvironmentsTree(ctx.environments, ctx.results);
  const codeLens = new EnvironmentCodeLens(ctx.environments, ctx.results);
  const tests = activateTestExplorer(ctx);
  subs.push(
    diagnostics,
    vscode.languages.registerCodeActionsProvider(ENVIRONMENT_FILES, new ProblemQuickFixes(diagnostics), {
      providedCodeActionKinds: ProblemQuickFixes.kinds,
    }),
    environmentsTree,
    vscode.window.createTreeView("rlenv.environments", { treeDataProvider: environmentsTree, showCollapseAll: true }),
    vscode.window.createTreeView("rlenv.runs", { treeDataProvider: ctx.runs }),
    codeLens,
    vscode.languages.registerCodeLensProvider(ENVIRONMENT_FILES, codeLens),
    vscode.languages.registerHoverProvider(MANIFEST_FILES, new ReferenceHovers(ctx)),
    vscode.languages.registerCompletionItemProvider(TASK_TOML, new TaskTomlCompletion(), "[", '"', "="),
    vscode.languages.registerHoverProvider(TASK_TOML, new TaskTomlHover()),
    new StatusBar(ctx.settings),
    tests,
    vscode.workspace.onDidGrantWorkspaceTrust(() => ctx.log.info("workspace trusted: validation and rollouts enabled")),
  );
  void ctx.environments.refresh();
  // Features holding state of their own return their commands; every command goes through the one table.
  const runners = activateRunners(ctx.extension, ctx.log, () =>
    vscode.workspace.workspaceFolders?.[0] ? ctx.settings.runsDir(vscode.workspace.workspaceFolders[0]) : undefined,
  );
  const commands = [
    ...COMMAND_SPECS,
    ...activateViewer(ctx.extension, ctx.log),
    ...activateLiveSandbox(ctx, ctx.live),
    ...activateDebugger(ctx),
    ...runners.commands,
  ];
  subs.push(...registerCommands(ctx, commands));
  return { tests, commands, runners: runners.tree };
}

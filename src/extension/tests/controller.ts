import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import type { TaskOutcome } from "../rollouts/outcome";
import { allowedToExecute } from "../trust/guard";
import { syncTestItems } from "./items";
import { markdownMessage, outcomeMarkdown, outcomeText, reportValidations, taskOf } from "./report";
import { externalValidation } from "./external-run";

type Mode = "validate" | "rollout" | "audit";

/** The Test Explorer feature: its controller and each test's last state (read by the extension-host suites). */
export interface TestExplorer extends vscode.Disposable {
  controller: vscode.TestController;
  profiles: { validate: vscode.TestRunProfile; rollout: vscode.TestRunProfile; audit: vscode.TestRunProfile; debug: vscode.TestRunProfile };
  lastStates: Map<string, "passed" | "failed" | "errored" | "skipped">;
  /** Resolves when the run in progress (if any) has ended. */
  idle(): Promise<void>;
}

/** Tests to run, grouped by environment folder: undefined task list = every task. */
function plan(request: vscode.TestRunRequest, controller: vscode.TestController): Map<string, vscode.TestItem[]> {
  const excluded = new Set((request.exclude ?? []).map((i) => i.id));
  const roots = request.include ?? [...iter(controller.items)];
  const out = new Map<string, vscode.TestItem[]>();
  for (const root of roots) {
    if (excluded.has(root.id)) continue;
    const tests = root.children.size > 0 ? [...iter(root.children)] : [root];
    for (const t of tests) {
      if (excluded.has(t.id)) continue;
      const envDir = t.id.slice(0, t.id.lastIndexOf("#"));
      if (!out.has(envDir)) out.set(envDir, []);
      out.get(envDir)?.push(t);
    }
  }
  return out;
}

function* iter(c: vscode.TestItemCollection): Generator<vscode.TestItem> {
  for (const [, item] of c) yield item;
}

/**
 * The Test Explorer: each environment a suite, each task a test. Validate (default):
 * the oracle passes and nop fails; Rollout: the configured policy reaches the reward
 * threshold; Debug: hands the task to `rlenv.debugTask` when registered. Cancelling a
 * run aborts the engine, which closes its sandboxes.
 */
export function activateTestExplorer(ctx: ExtensionCtx): TestExplorer {
  const controller = vscode.tests.createTestController("rlenv", "RL Env Studio");
  controller.refreshHandler = () => ctx.environments.refresh();
  const sync = () => syncTestItems(controller, ctx.environments);
  void ctx.environments.ready().then(sync);

  const lastStates: TestExplorer["lastStates"] = new Map();
  let running: Promise<void> = Promise.resolve();
  const handler = (mode: Mode) => (request: vscode.TestRunRequest, token: vscode.CancellationToken) => {
    const run = recording(
      controller.createTestRun(request, { validate: "Validate", rollout: "Rollout", audit: "Audit" }[mode]),
      lastStates,
    );
    running = execute(ctx, mode, plan(request, controller), run, token).finally(() => run.end());
    return running;
  };
  const debug = async (request: vscode.TestRunRequest) => {
    const first = plan(request, controller).entries().next().value;
    const item = first?.[1][0];
    if (first && item) await vscode.commands.executeCommand("rlenv.debug", { envDir: first[0], taskId: taskOf(item) });
  };
  const profiles = {
    validate: controller.createRunProfile("Validate", vscode.TestRunProfileKind.Run, handler("validate"), true),
    rollout: controller.createRunProfile("Rollout", vscode.TestRunProfileKind.Run, handler("rollout"), false),
    // Tries to fool each task's verifier (flakiness, hack probes, mutants), as `rlenv audit`.
    audit: controller.createRunProfile("Audit", vscode.TestRunProfileKind.Run, handler("audit"), false),
    debug: controller.createRunProfile("Debug", vscode.TestRunProfileKind.Debug, debug, true),
  };
  // A Validate started elsewhere (the CodeLens, the palette, the Environments view) shows in the Test Explorer as its own run.
  ctx.testRuns = {
    beginValidation: (envDir, taskIds) =>
      externalValidation(
        controller,
        profiles.validate,
        envDir,
        taskIds,
        (run) => recording(run, lastStates),
        (p) => {
          running = p;
        },
      ),
  };
  const subs = [controller, ctx.environments.onDidChange(sync), profiles.validate, profiles.rollout, profiles.audit, profiles.debug];
  return {
    controller,
    profiles,
    lastStates,
    idle: () => running.catch(() => undefined),
    dispose: () => {
      ctx.testRuns = undefined;
      for (const s of subs) s.dispose();
    },
  };
}

/** Wraps a TestRun so each item's final state is remembered. */
function recording(run: vscode.TestRun, states: TestExplorer["lastStates"]): vscode.TestRun {
  type Messages = vscode.TestMessage | readonly vscode.TestMessage[];
  const mark = (t: vscode.TestItem, state: "passed" | "failed" | "errored" | "skipped") => {
    states.set(t.id, state);
  };
  return Object.assign(Object.create(run) as vscode.TestRun, {
    passed: (t: vscode.TestItem, d?: number) => {
      mark(t, "passed");
      run.passed(t, d);
    },
    failed: (t: vscode.TestItem, m: Messages, d?: number) => {
      mark(t, "failed");
      run.failed(t, m, d);
    },
    errored: (t: vscode.TestItem, m: Messages, d?: number) => {
      mark(t, "errored");
      run.errored(t, m, d);
    },
    skipped: (t: vscode.TestItem) => {
      mark(t, "skipped");
      run.skipped(t);
    },
    started: (t: vscode.TestItem) => run.started(t),
    appendOutput: (o: string, l?: vscode.Location, t?: vscode.TestItem) => run.appendOutput(o, l, t),
    end: () => run.end(),
  });
}

/** One environment's tests in one mode, what the Test Explorer's run needs to report them. */
interface GroupRun {
  ctx: ExtensionCtx;
  env: Environment;
  items: vscode.TestItem[];
  run: vscode.TestRun;
  signal: AbortSignal;
  /** When the group started (each test's duration counts from there). */
  started: number;
}

/** The audit of a group's tasks: each test's verdict, then where the report is. */
async function auditGroup({ ctx, env, items, run, signal, started }: GroupRun): Promise<void> {
  const { auditTasks, reportTaskAudit } = await import("./audit");
  const audit = await auditTasks(ctx, env, items.map(taskOf), signal);
  const byTask = new Map(audit.tasks.map((a) => [a.id, a]));
  for (const t of items) {
    const a = byTask.get(taskOf(t));
    if (a) reportTaskAudit(run, t, a, audit.md, Date.now() - started);
  }
  run.appendOutput(`audit report: ${audit.md}\r\n`);
}

/** The validation of a group's tasks (oracle and nop): valid passes, invalid fails, not graded is skipped. */
async function validateGroup({ ctx, env, items, run, signal, started }: GroupRun): Promise<void> {
  const { validateTasks } = await import("../rollouts/validate");
  const { validations } = await validateTasks(ctx, env, items.map(taskOf), signal);
  reportValidations(run, items, validations, started);
}
/** Rollouts of a group's tasks with the configured policy: a test passes when its mean reward reaches the threshold. */
async function rolloutGroup({ ctx, env, items, run, signal, started }: GroupRun): Promise<void> {
  const { rolloutTasks } = await import("../rollouts/rollout");
  const { rollouts } = await rolloutTasks(ctx, env, items.map(taskOf), signal);
  const threshold = ctx.settings.passThreshold();
  for (const t of items) {
    const r = rollouts.find((x) => x.task === taskOf(t));
    if (!r) continue;
    const text = r.outcomes.map((o: TaskOutcome, i) => outcomeText(`sample ${i}`, o)).join("");
    run.appendOutput(
      `${r.task}: mean reward ${r.reward === null ? "-" : r.reward.toFixed(2)} (threshold ${threshold})\r\n${text}`,
      undefined,
      t,
    );
    const md = r.outcomes.map((o, i) => outcomeMarkdown(`sample ${i}`, o)).join("\n\n");
    if (r.passed) run.passed(t, Date.now() - started);
    else
      run.failed(
        t,
        markdownMessage(`mean reward ${r.reward === null ? "–" : r.reward.toFixed(2)} is below the threshold ${threshold}\n\n${md}`),
        Date.now() - started,
      );
  }
}

const runGroup: Record<Mode, (g: GroupRun) => Promise<void>> = { audit: auditGroup, validate: validateGroup, rollout: rolloutGroup };

/** One environment's tests: errored when it does not load; skipped when cancelled; errored with the message when the run fails. */
async function executeGroup(
  ctx: ExtensionCtx,
  mode: Mode,
  envDir: string,
  items: vscode.TestItem[],
  run: vscode.TestRun,
  signal: AbortSignal,
): Promise<void> {
  const entry = ctx.environments.get(envDir);
  const env = entry?.result.env;
  const errors = entry?.result.problems.filter((p) => p.severity === "error") ?? [];
  if (!env || errors.length > 0) {
    const msg = new vscode.TestMessage(
      `${entry?.label ?? envDir} does not load: ${errors.map((p) => `${p.path ? `${p.path}: ` : ""}${p.message}`).join("; ")}`,
    );
    for (const t of items) run.errored(t, msg);
    return;
  }
  for (const t of items) run.started(t);
  try {
    await runGroup[mode]({ ctx, env, items, run, signal, started: Date.now() });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (signal.aborted) {
      for (const t of items) run.skipped(t);
      run.appendOutput(`cancelled: ${message}\r\n`);
    } else {
      ctx.log.error(`${mode} of ${env.manifest.name} failed: ${e instanceof Error && e.stack ? e.stack : message}`);
      for (const t of items) run.errored(t, new vscode.TestMessage(message));
    }
  }
}

async function execute(
  ctx: ExtensionCtx,
  mode: Mode,
  groups: Map<string, vscode.TestItem[]>,
  run: vscode.TestRun,
  token: vscode.CancellationToken,
): Promise<void> {
  const all = [...groups.values()].flat();
  if (!allowedToExecute({ validate: "validate", rollout: "start a rollout", audit: "audit" }[mode])) {
    for (const t of all) run.skipped(t);
    run.appendOutput("Not run: this workspace is not trusted, and validation runs the environment's commands in sandboxes.\r\n");
    return;
  }
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort(new Error("cancelled from the Test Explorer")));
  try {
    for (const [envDir, items] of groups) {
      if (abort.signal.aborted) break;
      await executeGroup(ctx, mode, envDir, items, run, abort.signal);
    }
  } finally {
    sub.dispose();
  }
}

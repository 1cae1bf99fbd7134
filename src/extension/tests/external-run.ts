import * as vscode from "vscode";
import type { ExternalTestRun } from "../context";
import { suiteId, testId } from "./items";
import { reportValidations } from "./report";

/**
 * A Test Explorer run for a validation started outside it (the CodeLens, the command
 * palette): the tests spin while it runs and end with the same states and messages as a
 * run from the Test Explorer's own Validate profile, so the gutter and the tree stop
 * saying "not yet run". `wrap` lets the controller remember each item's state; `track`
 * hands it the run's end so `idle()` waits for it.
 */
export function externalValidation(
  controller: vscode.TestController,
  profile: vscode.TestRunProfile,
  envDir: string,
  taskIds: readonly string[] | undefined,
  wrap: (run: vscode.TestRun) => vscode.TestRun,
  track: (ended: Promise<void>) => void,
): ExternalTestRun {
  const suite = controller.items.get(suiteId(envDir));
  const items: vscode.TestItem[] = [];
  if (suite) {
    if (taskIds === undefined)
      suite.children.forEach((t) => {
        items.push(t);
      });
    else
      for (const id of taskIds) {
        const t = suite.children.get(testId(envDir, id));
        if (t) items.push(t);
      }
  }
  const run = wrap(controller.createTestRun(new vscode.TestRunRequest(items, undefined, profile), "Validate", true));
  const started = Date.now();
  for (const t of items) run.started(t);
  let end: () => void = () => undefined;
  track(new Promise<void>((resolve) => (end = resolve)));
  const finish = () => {
    run.end();
    end();
  };
  return {
    validated: (validations) => {
      reportValidations(run, items, validations, started);
      finish();
    },
    failed: (message, cancelled) => {
      for (const t of items) {
        if (cancelled) run.skipped(t);
        else run.errored(t, new vscode.TestMessage(message));
      }
      if (cancelled) run.appendOutput(`cancelled: ${message}\r\n`);
      finish();
    },
  };
}

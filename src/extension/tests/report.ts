import path from "node:path";
import * as vscode from "vscode";
import type { TaskOutcome, TaskValidation } from "../rollouts/outcome";
import { formatBreakdown, readRolloutSummary } from "../../core/app/list-runs";

/** A command link that opens a trajectory in the viewer (test messages render it as Markdown). */
export function trajectoryLink(file: string): string {
  return `[open trajectory ${path.basename(file)}](command:rlenv.openRollout?${encodeURIComponent(JSON.stringify([file]))})`;
}

/** The reward breakdown of a rollout as Markdown lines, with the link to its trajectory. */
export function outcomeMarkdown(label: string, o: TaskOutcome | undefined): string {
  if (!o) return `**${label}**: did not run`;
  const lines = [
    `**${label}**: reward ${o.reward === null ? "–" : o.reward.toFixed(2)} (${o.status})${o.failure ? ` — ${o.failure}` : ""}`,
  ];
  if (o.file) {
    lines.push(...formatBreakdown(readRolloutSummary(o.file).components).map((l) => `- ${l}`));
    lines.push(trajectoryLink(o.file));
  }
  return lines.join("\n\n");
}

/** Plain-text form for the test output panel (CRLF, as the terminal there wants). */
export function outcomeText(label: string, o: TaskOutcome | undefined): string {
  if (!o) return `${label}: did not run\r\n`;
  const lines = [`${label}: reward ${o.reward === null ? "-" : o.reward.toFixed(2)} (${o.status})${o.failure ? ` — ${o.failure}` : ""}`];
  if (o.file) lines.push(...formatBreakdown(readRolloutSummary(o.file).components).map((l) => `  ${l}`), `  trajectory: ${o.file}`);
  return `${lines.join("\r\n")}\r\n`;
}

export function markdownMessage(md: string): vscode.TestMessage {
  const s = new vscode.MarkdownString(md);
  s.isTrusted = { enabledCommands: ["rlenv.openRollout", "rlenv.openAuditReport"] };
  return new vscode.TestMessage(s);
}

/** The id of a task's test item is `<env dir>#<task id>`: the task id is what follows the last '#'. */
export const taskOf = (item: vscode.TestItem): string => item.id.slice(item.id.lastIndexOf("#") + 1);

/** Each test's validation verdict in a Test Explorer run: valid passes, invalid fails, not graded is skipped. */
export function reportValidations(
  run: vscode.TestRun,
  items: readonly vscode.TestItem[],
  validations: readonly TaskValidation[],
  started: number,
): void {
  const byTask = new Map(validations.map((v) => [v.task, v]));
  for (const t of items) {
    const v = byTask.get(taskOf(t));
    if (!v) continue;
    run.appendOutput(
      `${v.task}: ${v.passed ? "valid" : v.skipped ? "not graded" : "INVALID"} — ${v.reason}\r\n${outcomeText("oracle", v.oracle)}${outcomeText("nop", v.nop)}`,
      undefined,
      t,
    );
    if (v.passed) run.passed(t, Date.now() - started);
    // Not graded here (a judge with no endpoint): neither a pass nor a failure.
    else if (v.skipped) run.skipped(t);
    else
      run.failed(
        t,
        markdownMessage(`${v.reason}\n\n${outcomeMarkdown("oracle", v.oracle)}\n\n${outcomeMarkdown("nop", v.nop)}`),
        Date.now() - started,
      );
  }
}

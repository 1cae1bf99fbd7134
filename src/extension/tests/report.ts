import path from "node:path";
import * as vscode from "vscode";
import type { TaskOutcome } from "../rollouts/outcome";
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

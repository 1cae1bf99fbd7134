import path from "node:path";
import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { TaskAudit } from "../../core/schema/audit";
import type { ExtensionCtx } from "../context";
import { loadEngine, runsDirFor } from "../rollouts/engine";
import { markdownMessage, trajectoryLink } from "./report";

/** Where the editor's audit of an environment goes: beside its runs, one folder per environment. */
export function auditFolderFor(ctx: ExtensionCtx, env: Environment): string {
  return path.join(runsDirFor(ctx, env), "audit", env.manifest.name);
}

/** Fenced so a diff's own backticks cannot end the block. */
function fenced(text: string, lang = "diff"): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** One task's audit as Markdown: its problems, each probe finding with its trajectory, each survivor with its diff. */
export function taskAuditMarkdown(t: TaskAudit, reportMd: string): string {
  const parts: string[] = [];
  if (t.not_judged) parts.push(`Not judged here: ${t.not_judged}`);
  for (const p of t.problems) parts.push(`- ${p}`);
  for (const f of t.probes.filter((p) => p.status === "finding"))
    parts.push(
      `**probe ${f.probe}** scored ${typeof f.reward === "number" ? f.reward.toFixed(2) : f.reward} on ${f.backend}: ${trajectoryLink(f.trajectory)}`,
    );
  const m = t.mutation;
  if (m) {
    parts.push(
      `**mutation score** ${m.score === null ? "not judged" : m.score.toFixed(2)}: ${m.killed} killed, ${m.survived} survived, ${m.equivalent} equivalent, ${m.not_judged} not judged`,
    );
    for (const s of m.survivors) parts.push(`**survivor** ${s.description}: ${trajectoryLink(s.trajectory)}\n\n${fenced(s.diff)}`);
    for (const r of m.rejected_correct) parts.push(`**rejected a correct answer** ${r.description}: ${trajectoryLink(r.trajectory)}`);
  }
  parts.push(
    `[the whole audit report](${vscode.Uri.file(reportMd).toString()}) · [open it in the viewer](command:rlenv.openAuditReport?${encodeURIComponent(JSON.stringify([path.dirname(reportMd)]))})`,
  );
  return parts.join("\n\n");
}

/** The verdict of one task's audit on its Test Explorer item. */
export function reportTaskAudit(run: vscode.TestRun, item: vscode.TestItem, t: TaskAudit, reportMd: string, ms: number): void {
  const counts = t.mutation ? ` mutation score ${t.mutation.score === null ? "-" : t.mutation.score.toFixed(2)}` : "";
  const findings = t.probes.filter((p) => p.status === "finding").length;
  run.appendOutput(
    `${t.id}: ${t.not_judged ? "not judged" : t.ok ? "audit passed" : "AUDIT FAILED"} —${counts}, ${t.probes.length} probe rollouts, ${findings} findings\r\n${t.problems.map((p) => `  ${p}\r\n`).join("")}`,
    undefined,
    item,
  );
  if (t.not_judged) run.skipped(item);
  else if (t.ok) run.passed(item, ms);
  else run.failed(item, markdownMessage(taskAuditMarkdown(t, reportMd)), ms);
}

/** Audits the tasks of one environment with the core engine (the same as `rlenv audit`). */
export async function auditTasks(
  ctx: ExtensionCtx,
  env: Environment,
  tasks: string[] | undefined,
  signal: AbortSignal,
): Promise<{ tasks: TaskAudit[]; json: string; md: string }> {
  const out = auditFolderFor(ctx, env);
  ctx.log.info(`audit ${env.manifest.name}: tasks ${tasks?.join(", ") ?? "all"}, sandbox ${ctx.settings.sandboxBackend()}, into ${out}`);
  const { report, json, md } = await loadEngine().auditEnvironment({
    env,
    out,
    sandbox: ctx.settings.sandboxBackend(),
    ...(tasks ? { tasks } : {}),
    concurrency: ctx.settings.concurrency(),
    signal,
    log: (l) => ctx.log.info(`  ${l}`),
  });
  signal.throwIfAborted();
  ctx.runs.refresh();
  return { tasks: report.environments[0]?.tasks ?? [], json, md };
}

import path from "node:path";
import type { AuditReport, TaskAudit } from "../schema/audit";

const fmt = (r: number | null | undefined) => (r === null || r === undefined ? "–" : String(Math.round(r * 1000) / 1000));

/** Trajectory paths relative to the report's folder, so the links work where the report is opened. */
function rel(from: string, file: string): string {
  return path.relative(from, file).split(path.sep).join("/");
}

function taskLine(t: TaskAudit): string {
  const flaky = t.flakiness.some((f) => f.flaky) ? "**flaky**" : t.flakiness.length > 0 ? "stable" : "–";
  const parity =
    t.parity === null
      ? "–"
      : t.parity.agree === null
        ? "not judged"
        : t.parity.agree
          ? "agree"
          : `**differs** (${t.parity.first_difference?.component})`;
  const m = t.mutation;
  const mutation = m
    ? `${fmt(m.score)} (${m.killed}/${m.mutants - m.equivalent - m.not_judged}${m.equivalent ? `, ${m.equivalent} equiv.` : ""})`
    : "–";
  const findings = t.probes.filter((p) => p.status === "finding").length;
  const probes = `${findings ? `**${findings} finding${findings === 1 ? "" : "s"}**` : "0 findings"} / ${t.probes.length}`;
  if (t.not_judged) return `| ⊘ | ${t.id} | not judged here: ${t.not_judged} | | | |`;
  return `| ${t.ok ? "✓" : "✗"} | ${t.id} | ${flaky} | ${parity} | ${mutation} | ${probes} |`;
}

/** audit.md: the verdict, a table per environment, then the evidence of every failing task. */
export function auditMarkdown(report: AuditReport, outDir: string): string {
  const lines: string[] = [];
  lines.push(`# Reward audit: ${report.ok ? "PASS" : "FAIL"}`, "");
  lines.push(
    `${report.created} · oracle × ${report.options.runs} per backend (${report.options.backends.join(", ")}) · up to ${report.options.mutants} mutants per task (seed ${report.options.seed}) · ${report.options.probes.length} probes`,
    "",
  );
  for (const env of report.environments) {
    const failed = env.tasks.filter((t) => !t.ok);
    lines.push(`## ${env.name} (${env.domain}): ${env.ok ? "pass" : `${failed.length} of ${env.tasks.length} tasks fail`}`, "");
    for (const n of env.notes) lines.push(`> ${n}`, "");
    lines.push(`Minimum mutation score: ${env.min_mutation_score}`, "");
    if (env.judge)
      lines.push(
        `Judged in: ${env.judge.sandbox === "fresh" ? "a fresh sandbox holding only the submission" : "the agent's own sandbox, after its processes are stopped"}; hack signals: ${env.judge.hack_signals}`,
        "",
      );
    lines.push("| | task | flakiness | parity | mutation score | probes |", "|---|---|---|---|---|---|");
    for (const t of env.tasks) lines.push(taskLine(t));
    lines.push("");
    for (const t of env.tasks) {
      const survivors = t.mutation?.survivors ?? [];
      const rejected = t.mutation?.rejected_correct ?? [];
      if (t.ok && survivors.length === 0 && rejected.length === 0) continue;
      lines.push(`### ${t.id}`, "");
      for (const p of t.problems) lines.push(`- ${p}`);
      for (const p of t.probes.filter((x) => x.status === "finding"))
        lines.push(`- probe \`${p.probe}\` (${p.backend}) scored ${fmt(p.reward)}: [trajectory](${rel(outDir, p.trajectory)})`);
      if (t.mutation?.note) lines.push(`- mutation: ${t.mutation.note}`);
      lines.push("");
      for (const s of survivors) {
        lines.push(
          `Survivor \`${s.operator}\`: ${s.description} (reward ${fmt(s.reward)}, [trajectory](${rel(outDir, s.trajectory)}))`,
          "",
          "```diff",
          s.diff.trimEnd(),
          "```",
          "",
        );
      }
      for (const r of rejected)
        lines.push(
          `- a correct reformatting was rejected: ${r.description} → ${JSON.stringify(r.answer)} scored ${fmt(r.reward)} ([trajectory](${rel(outDir, r.trajectory)}))`,
        );
      if (rejected.length > 0) lines.push("");
    }
  }
  return `${lines.join("\n")}\n`;
}

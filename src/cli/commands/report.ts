import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { compareRuns } from "../../core/report/compare";
import { renderComparisonText, renderReportText } from "../../core/report/render-text";
import { renderReportHtml } from "../../core/report/render-html";
import { reportForRun, tasksInBand } from "../../core/report/run-report";
import { writeTasksFile } from "../../core/report/tasks-file";
import { Band } from "../../core/schema/report";

interface ReportOptions {
  json?: boolean;
  html?: string;
  emitTasks?: string;
  band: string;
}

export function registerReport(program: Command): void {
  program
    .command("report")
    .description(
      "Is a task set worth training on: pass@k and pass^k, zero-variance groups, difficulty bands, failures, where time went; two runs are compared",
    )
    .argument("<runs...>", "run folders (runs/<run-id>); with two or more, each is compared against the first")
    .option("--json", "print the reports (and comparisons) as JSON on stdout")
    .option("--html <file>", "also write a standalone HTML page")
    .option("--emit-tasks <file>", "write the ids of the last run's tasks in --band, one a line (for rlenv run --tasks-file)")
    .option("--band <band>", "always, learnable or never", "learnable")
    .action((runs: string[], o: ReportOptions) => {
      const band = Band.safeParse(o.band);
      if (!band.success) throw new Error(`--band must be always, learnable or never, got '${o.band}'`);
      const reports = runs.map((r) => reportForRun(r));
      const comparisons = reports.slice(1).map((r) => compareRuns(reports[0]!, r));
      if (o.json) process.stdout.write(`${JSON.stringify({ reports, comparisons }, null, 2)}\n`);
      else {
        for (const r of reports) process.stdout.write(renderReportText(r));
        for (const c of comparisons) process.stdout.write(renderComparisonText(c));
      }
      if (o.html) {
        writeFileSync(o.html, renderReportHtml(reports, comparisons[0] ?? null));
        process.stderr.write(`wrote ${o.html}\n`);
      }
      if (o.emitTasks) {
        const last = reports[reports.length - 1]!;
        const ids = tasksInBand(last, band.data);
        writeTasksFile(
          o.emitTasks,
          ids,
          `rlenv report ${path.relative(process.cwd(), last.dir) || "."} --band ${band.data}: ${ids.length} tasks`,
        );
        process.stderr.write(`wrote ${ids.length} ${band.data} task id${ids.length === 1 ? "" : "s"} to ${o.emitTasks}\n`);
      }
    });
}

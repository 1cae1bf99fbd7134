import { createWriteStream, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { exportChatJsonl, readRun } from "../../core/runs";
import { rlRecordsToParquet } from "../../core/runs/export-parquet";
import { exportRlRecords, exportTrlRecords } from "../../core/runs/export-rl";
import { exportAtif } from "./atif";
import { exportHarborCommand } from "./import";

const FORMATS = ["chat-jsonl", "rl-jsonl", "parquet", "trl", "atif"];

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("Export a run's trajectories: chat fine-tuning records, or token-level records for RL trainers (docs/exports.md)")
    .argument(
      "<run>",
      "run folder (runs/<run-id>); or `harbor` followed by environment folders: their tasks as Harbor task folders in --out",
    )
    .argument("[dirs...]", "with harbor: the environment folders")
    .option("--format <format>", FORMATS.join(" | "), "chat-jsonl")
    .option("--min-reward <r>", "only rollouts with at least this reward", (v) => {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`--min-reward must be a number, got '${v}'`);
      return n;
    })
    .option("--status <statuses...>", "only rollouts that ended with these statuses (e.g. completed)")
    .option("-o, --out <file>", "write here instead of stdout")
    .action(async (run: string, dirs: string[], o: { format: string; minReward?: number; status?: string[]; out?: string }) => {
      if (run === "harbor" && dirs.length > 0) return exportHarborCommand(dirs, o.out);
      if (!FORMATS.includes(o.format)) throw new Error(`--format must be one of ${FORMATS.join(", ")}, got '${o.format}'`);
      if (o.format === "parquet" && !o.out) throw new Error("--format parquet writes a file: name it with --out");
      readRun(run); // a clear error when this is not a run folder
      const filters = {
        ...(o.minReward !== undefined ? { minReward: o.minReward } : {}),
        ...(o.status ? { statuses: o.status } : {}),
      };
      if (o.format === "atif") return exportAtif(run, { ...filters, ...(o.out ? { out: o.out } : {}) });
      // A closed pipe (`| head`) is the reader saying it has enough, not an error.
      process.stdout.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code === "EPIPE") process.exit(0);
        throw e;
      });
      let note = "";
      let lines: Iterable<string>;
      if (o.format === "rl-jsonl" || o.format === "parquet") {
        const { records, withoutTokens, broken } = exportRlRecords(run, filters);
        if (withoutTokens > 0) note = `; ${withoutTokens} left out: their policy server returned no token ids`;
        for (const b of broken) process.stderr.write(`${b}\n`);
        if (broken.length > 0) {
          note += `; ${broken.length} left out: their token fields do not read back (above)`;
          process.exitCode = 1;
        }
        if (o.format === "parquet") {
          writeFileSync(o.out as string, rlRecordsToParquet(records));
          process.stderr.write(`exported ${records.length} rollout${records.length === 1 ? "" : "s"}${note}\n`);
          return;
        }
        lines = records.map((r) => JSON.stringify(r));
      } else if (o.format === "trl") lines = exportTrlRecords(run, filters).map((r) => JSON.stringify(r));
      else lines = exportChatJsonl(run, filters);
      const out: NodeJS.WritableStream = o.out ? createWriteStream(o.out) : process.stdout;
      let n = 0;
      for (const line of lines) {
        if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
        n++;
      }
      if (o.out) await new Promise<void>((resolve, reject) => out.once("error", reject).end(() => resolve()));
      process.stderr.write(`exported ${n} rollout${n === 1 ? "" : "s"}${note}\n`);
    });
}

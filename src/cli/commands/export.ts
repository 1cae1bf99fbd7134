import { createWriteStream, existsSync, statSync } from "node:fs";
import { type Command, Option } from "commander";
import { exportChatJsonl } from "../../core/runs/export-chat";
import { readRun } from "../../core/runs/run-dir";
import { writeRlParquet } from "../../core/runs/export-parquet";
import { exportRlRecords, exportTrlRecords, type RlExportOptions, streamRlRecords } from "../../core/runs/export-rl";
import { atifLines, writeAtifFolder } from "./atif";
import { exportVerlCommand } from "./export-verl";
import { exportHarborCommand } from "./import";

const FORMATS = ["chat-jsonl", "rl-jsonl", "parquet", "trl", "atif"];

interface ExportOptions {
  format: string;
  minReward?: number;
  status?: string[];
  out?: string;
  outDir?: string;
  split?: string;
}

/** The lines a JSONL format writes, a note for stderr, and the rollouts left out because they do not read back. */
interface Lines {
  lines: Iterable<string>;
  note: string;
  broken: string[];
}

function rlLines(run: string, filters: RlExportOptions): Lines & { records: ReturnType<typeof exportRlRecords>["records"] } {
  const { records, withoutTokens, broken } = exportRlRecords(run, filters);
  const note = withoutTokens > 0 ? `; ${withoutTokens} left out: their policy server returned no token ids` : "";
  return { records, lines: records.map((r) => JSON.stringify(r)), note, broken };
}

function jsonlLines(format: string, run: string, filters: RlExportOptions): Lines {
  if (format === "rl-jsonl") return rlLines(run, filters);
  if (format === "trl") return { lines: exportTrlRecords(run, filters).map((r) => JSON.stringify(r)), note: "", broken: [] };
  if (format === "atif") {
    const broken: string[] = [];
    return { lines: atifLines(run, filters, broken), note: "", broken };
  }
  return { lines: exportChatJsonl(run, filters), note: "", broken: [] };
}

/** `--out` names a file for every format; a folder there is a mistake the user should hear about before anything is read. */
function checkOut(o: ExportOptions): void {
  if (o.out && existsSync(o.out) && statSync(o.out).isDirectory())
    throw new Error(
      `--out names the file to write; ${o.out} is a folder${o.format === "atif" ? " (one ATIF file per rollout: --out-dir DIR)" : ""}`,
    );
  if (o.outDir && o.format !== "atif")
    throw new Error("--out-dir is for --format atif (one file per rollout); the other formats write one file: --out FILE");
  if (o.outDir && o.out) throw new Error("give --out FILE or --out-dir DIR, not both");
  if (o.format === "parquet" && !o.out) throw new Error("--format parquet writes a file: name it with --out");
}

/** Writes each line to --out or stdout, waiting on a full pipe; returns how many. */
async function writeLines(lines: Iterable<string>, file: string | undefined): Promise<number> {
  const out: NodeJS.WritableStream = file ? createWriteStream(file) : process.stdout;
  let n = 0;
  for (const line of lines) {
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
    n++;
  }
  if (file) await new Promise<void>((resolve, reject) => out.once("error", reject).end(() => resolve()));
  return n;
}

const rollouts = (n: number) => `${n} rollout${n === 1 ? "" : "s"}`;

async function exportRun(run: string, o: ExportOptions): Promise<void> {
  if (!FORMATS.includes(o.format)) throw new Error(`--format must be one of ${FORMATS.join(", ")}, got '${o.format}'`);
  checkOut(o);
  readRun(run); // a clear error when this is not a run folder
  const filters = {
    ...(o.minReward !== undefined ? { minReward: o.minReward } : {}),
    ...(o.status ? { statuses: o.status } : {}),
  };
  const report = (n: number, note: string, broken: string[]) => {
    for (const b of broken) process.stderr.write(`${b}\n`);
    if (broken.length > 0) process.exitCode = 1;
    const left = broken.length > 0 ? `; ${broken.length} left out: their token fields do not read back (above)` : "";
    process.stderr.write(`exported ${rollouts(n)}${o.format === "atif" ? " as ATIF" : ""}${note}${left}\n`);
  };
  if (o.outDir) {
    const { written, broken } = writeAtifFolder(run, o.outDir, filters);
    return report(written, "", broken);
  }
  if (o.format === "parquet") {
    // A stream: one trajectory and one row group in memory at a time, however large the run.
    const tally = { withoutTokens: 0, broken: [] as string[] };
    const n = writeRlParquet(o.out as string, streamRlRecords(run, filters, tally));
    const note = tally.withoutTokens > 0 ? `; ${tally.withoutTokens} left out: their policy server returned no token ids` : "";
    return report(n, note, tally.broken);
  }
  // A closed pipe (`| head`) is the reader saying it has enough, not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
  const { lines, note, broken } = jsonlLines(o.format, run, filters);
  const n = await writeLines(lines, o.out);
  report(n, note, broken);
}

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("Export a run's trajectories: chat fine-tuning records, or token-level records for RL trainers (docs/exports.md)")
    .argument(
      "<run>",
      "run folder (runs/<run-id>); or `harbor` / `verl` followed by environment folders: their tasks as Harbor task folders in --out, or as verl's RL dataset (Parquet) in --out",
    )
    .argument("[dirs...]", "with harbor or verl: the environment folders")
    .addOption(new Option("--format <format>", FORMATS.join(" | ")).choices(FORMATS).default("chat-jsonl"))
    .option("--min-reward <r>", "only rollouts with at least this reward", (v) => {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`--min-reward must be a number, got '${v}'`);
      return n;
    })
    .option("--status <statuses...>", "only rollouts that ended with these statuses (e.g. completed)")
    .option("-o, --out <file>", "the file to write (every format; JSONL ones default to stdout); with harbor, the folder")
    .option("--out-dir <dir>", "atif only: one <rollout-id>.json per rollout in this folder (Harbor's layout)")
    .option("--split <name>", "verl only: the split named in each row's extra_info", "train")
    .action(async (run: string, dirs: string[], o: ExportOptions) => {
      if (run === "harbor" && dirs.length > 0) return exportHarborCommand(dirs, o.out);
      if (run === "verl" && dirs.length > 0) return exportVerlCommand(dirs, o);
      await exportRun(run, o);
    });
}

import { createWriteStream } from "node:fs";
import type { Command } from "commander";
import { exportChatJsonl, readRun } from "../../core/runs";

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("Export a run's trajectories, e.g. as OpenAI chat fine-tuning records")
    .argument("<run>", "run folder (runs/<run-id>)")
    .option("--format <format>", "chat-jsonl", "chat-jsonl")
    .option("--min-reward <r>", "only rollouts with at least this reward", (v) => {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`--min-reward must be a number, got '${v}'`);
      return n;
    })
    .option("--status <statuses...>", "only rollouts that ended with these statuses (e.g. completed)")
    .option("-o, --out <file>", "write here instead of stdout")
    .action(async (run: string, o: { format: string; minReward?: number; status?: string[]; out?: string }) => {
      if (o.format !== "chat-jsonl") throw new Error(`--format must be chat-jsonl, got '${o.format}'`);
      readRun(run); // a clear error when this is not a run folder
      // A closed pipe (`| head`) is the reader saying it has enough, not an error.
      process.stdout.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code === "EPIPE") process.exit(0);
        throw e;
      });
      const out: NodeJS.WritableStream = o.out ? createWriteStream(o.out) : process.stdout;
      let n = 0;
      for (const line of exportChatJsonl(run, {
        ...(o.minReward !== undefined ? { minReward: o.minReward } : {}),
        ...(o.status ? { statuses: o.status } : {}),
      })) {
        if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
        n++;
      }
      if (o.out) await new Promise<void>((resolve, reject) => out.once("error", reject).end(() => resolve()));
      process.stderr.write(`exported ${n} rollout${n === 1 ? "" : "s"}\n`);
    });
}

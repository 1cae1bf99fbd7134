// Peak heap of a parquet export, streamed (what `rlenv export --format parquet` does) against
// built whole in memory (the writer before), on the same generated run, each in a fresh process.
// Run: npx tsx test/bench/parquet-export-memory.ts [ROLLOUTS] [TURNS] [TOKENS_PER_TURN]   (default 100 3 10000: ~4M tokens)
// CAP=MB caps each process's old space (e.g. CAP=300: the whole build runs out, the stream does not).
import { execFileSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import path from "node:path";
import { writeTokenRun } from "../support/token-run";

const [rollouts = 100, turns = 3, perTurn = 10_000] = process.argv.slice(2).map(Number);
const dir = writeTokenRun(rollouts, turns, perTurn);
const child = path.join(__dirname, "..", "support", "parquet-export-child.ts");
try {
  console.log(`${rollouts} rollouts × ${turns} turns × ${perTurn} tokens a turn, in ${dir}`);
  for (const mode of ["stream", "whole"]) {
    const out = path.join(dir, `${mode}.parquet`);
    try {
      const stdout = execFileSync(
        process.execPath,
        [...(process.env.CAP ? [`--max-old-space-size=${process.env.CAP}`] : []), "--import", "tsx", child, mode, dir, out],
        { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
      const r = JSON.parse(stdout) as { rows: number; peakHeapMb: number; baseHeapMb: number };
      console.log(
        `${mode.padEnd(6)} ${r.rows} rows, peak heap ${r.peakHeapMb} MB (at start ${r.baseHeapMb} MB), file ${(statSync(out).size / 2 ** 20).toFixed(1)} MB`,
      );
    } catch (e) {
      console.log(
        `${mode.padEnd(6)} failed: ${
          String((e as { stderr?: string }).stderr ?? e)
            .split("\n")
            .find((l) => /heap|memory/i.test(l)) ?? e
        }`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Child process for the parquet memory test and bench: exports RUN_DIR to OUT either as a stream
// (the CLI's way) or built whole in memory, sampling the heap after every record it takes, and
// prints {rows, peakHeapMb, baseHeapMb} as JSON. Run under --max-old-space-size to cap the heap.
import { rlRecordsToParquet, writeRlParquet } from "../../src/core/runs/export-parquet";
import { exportRlRecords, type RlRecord, streamRlRecords } from "../../src/core/runs/export-rl";
import { writeFileSync } from "node:fs";

const [mode, runDir, out] = process.argv.slice(2) as ["stream" | "whole", string, string];
const mb = () => process.memoryUsage().heapUsed / 2 ** 20;
const baseHeapMb = mb();
let peak = baseHeapMb;
function* sampled(records: Iterable<RlRecord>): Generator<RlRecord> {
  for (const r of records) {
    peak = Math.max(peak, mb());
    yield r;
  }
}
let rows: number;
if (mode === "stream") {
  rows = writeRlParquet(out, sampled(streamRlRecords(runDir, {}, { withoutTokens: 0, broken: [] })));
} else {
  const { records } = exportRlRecords(runDir);
  peak = Math.max(peak, mb());
  const bytes = rlRecordsToParquet(records);
  peak = Math.max(peak, mb());
  writeFileSync(out, bytes);
  rows = records.length;
}
peak = Math.max(peak, mb());
process.stdout.write(`${JSON.stringify({ rows, peakHeapMb: Math.round(peak), baseHeapMb: Math.round(baseHeapMb) })}\n`);

// Parquet export as a stream: records are taken one at a time and each row group is flushed to
// the file as it fills, so an export holds one row group, not the run. The file reads back as
// the in-memory export's records, row for row. Peak memory is measured by
// test/bench/parquet-export-memory.ts (a heap figure, never asserted on time).
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { rlRecordsToParquet, writeRlParquet } from "../../src/core/runs/export-parquet";
import { exportRlRecords, type RlRecord, streamRlRecords } from "../../src/core/runs/export-rl";
import { rlenv } from "../support/cli";
import { writeTokenRun } from "../support/token-run";

const run = writeTokenRun(7, 2, 30);
after(() => rmSync(run, { recursive: true, force: true }));

const asBuffer = (file: string) => {
  const b = readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
};

test("streamRlRecords yields what exportRlRecords builds, with the same group statistics and filters", () => {
  const whole = exportRlRecords(run, { minReward: 1 });
  const tally = { withoutTokens: 0, broken: [] as string[] };
  const streamed = [...streamRlRecords(run, { minReward: 1 }, tally)];
  assert.deepEqual(streamed, whole.records);
  assert.ok(streamed.length > 0 && streamed.length < 7, "the filter picked some");
  assert.ok(
    streamed.every((r) => r.group_size > 1),
    "group statistics count the rollouts the filter dropped",
  );
});

test("writeRlParquet flushes a row group at its row or token limit; the rows read back as the records", async () => {
  const { records } = exportRlRecords(run);
  const file = path.join(run, "stream.parquet");
  let taken = 0;
  function* counted(): Generator<RlRecord> {
    for (const r of records) {
      taken++;
      yield r;
    }
  }
  assert.equal(writeRlParquet(file, counted(), { rows: 3, tokens: 1e9 }), 7);
  assert.equal(taken, 7);
  const meta = parquetMetadata(asBuffer(file));
  assert.deepEqual(
    meta.row_groups.map((g) => Number(g.num_rows)),
    [3, 3, 1],
  );
  const rows = (await parquetReadObjects({ file: asBuffer(file) })) as Array<Record<string, unknown>>;
  assert.deepEqual(
    rows.map((r) => [r.rollout_id, r.input_ids, r.loss_mask, r.reward, JSON.parse(r.reward_components as string)]),
    records.map((r) => [r.rollout_id, r.input_ids, r.loss_mask, r.reward, r.reward_components]),
  );
  const byTokens = path.join(run, "tokens.parquet");
  writeRlParquet(byTokens, records, { rows: 1000, tokens: records[0]!.input_ids.length * 2 });
  assert.equal(parquetMetadata(asBuffer(byTokens)).row_groups.length, 4, "a group closes once it holds the token limit");
  // The whole-file writer gives the same rows: readers see no difference (its dictionaries may
  // store a logprob of 0 as -0, which JSON, like every trainer, reads as 0).
  const whole = (await parquetReadObjects({ file: new Uint8Array(rlRecordsToParquet(records)).buffer as ArrayBuffer })) as unknown[];
  assert.equal(JSON.stringify(whole), JSON.stringify(rows));
});

test("rlenv export --format parquet writes the streamed file; an empty selection is a valid empty file", async () => {
  const out = path.join(run, "cli.parquet");
  const r = rlenv(["export", run, "--format", "parquet", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /exported 7 rollouts/);
  assert.equal(((await parquetReadObjects({ file: asBuffer(out) })) as unknown[]).length, 7);
  const none = path.join(run, "none.parquet");
  assert.equal(rlenv(["export", run, "--format", "parquet", "--out", none, "--min-reward", "5"]).code, 0);
  assert.equal(Number(parquetMetadata(asBuffer(none)).num_rows), 0);
});

import { fileWriter, ParquetWriter, parquetWriteBuffer } from "hyparquet-writer";
import type { RlRecord } from "./export-rl";

type Element = Record<string, unknown>;

const list = (name: string, type: "INT32" | "FLOAT"): Element[] => [
  { name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type, repetition_type: "REQUIRED" },
];
const str = (name: string, optional = false): Element => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type: optional ? "OPTIONAL" : "REQUIRED",
});
const scalar = (name: string, type: "INT32" | "DOUBLE"): Element => ({ name, type, repetition_type: "REQUIRED" });

/** The rl-jsonl columns of these records, each with its schema elements. */
function columnsOf(records: readonly RlRecord[]): Array<{ name: string; data: unknown[]; schema: Element[] }> {
  const col = <K extends keyof RlRecord>(k: K) => records.map((r) => r[k]);
  return [
    { name: "run_id", data: col("run_id"), schema: [str("run_id")] },
    { name: "rollout_id", data: col("rollout_id"), schema: [str("rollout_id")] },
    { name: "task", data: col("task"), schema: [str("task")] },
    { name: "sample", data: col("sample"), schema: [scalar("sample", "INT32")] },
    { name: "group_id", data: col("group_id"), schema: [str("group_id")] },
    { name: "status", data: col("status"), schema: [str("status")] },
    { name: "reward", data: col("reward"), schema: [scalar("reward", "DOUBLE")] },
    { name: "reward_components", data: records.map((r) => JSON.stringify(r.reward_components)), schema: [str("reward_components")] },
    { name: "advantage", data: col("advantage"), schema: [scalar("advantage", "DOUBLE")] },
    { name: "group_size", data: col("group_size"), schema: [scalar("group_size", "INT32")] },
    { name: "group_mean", data: col("group_mean"), schema: [scalar("group_mean", "DOUBLE")] },
    { name: "group_std", data: col("group_std"), schema: [scalar("group_std", "DOUBLE")] },
    { name: "model", data: col("model"), schema: [str("model", true)] },
    { name: "capture", data: col("capture"), schema: [str("capture")] },
    { name: "drift_turns", data: col("drift_turns"), schema: [scalar("drift_turns", "INT32")] },
    { name: "input_ids", data: col("input_ids"), schema: list("input_ids", "INT32") },
    { name: "loss_mask", data: col("loss_mask"), schema: list("loss_mask", "INT32") },
    { name: "logprobs", data: col("logprobs"), schema: list("logprobs", "FLOAT") },
    { name: "prompt_length", data: col("prompt_length"), schema: [scalar("prompt_length", "INT32")] },
  ];
}

const SCHEMA = (() => {
  const columns = columnsOf([]);
  return [{ name: "root", num_children: columns.length }, ...columns.flatMap((c) => c.schema)];
})();
const KV_METADATA = [{ key: "rlenv.format", value: "rl-parquet/1" }];

/**
 * The rl-jsonl columns as a Parquet file (hyparquet-writer: pure JS, no native addon): token lists as
 * list<int32> / list<float>, so pandas, pyarrow, datasets and DuckDB read them as arrays; the reward
 * components as JSON text (their names differ between environments). Built whole in memory: for
 * small sets and tests; an export writes with writeRlParquet.
 */
export function rlRecordsToParquet(records: readonly RlRecord[]): Uint8Array {
  const buf = parquetWriteBuffer({
    columnData: columnsOf(records).map(({ name, data }) => ({ name, data: data as never })),
    schema: SCHEMA as never,
    kvMetadata: KV_METADATA,
  });
  return new Uint8Array(buf);
}

/** When a row group is written out: whichever comes first. */
export interface RowGroupLimits {
  rows: number;
  /** Tokens (input_ids) held in the group being built. */
  tokens: number;
}

const DEFAULT_LIMITS: RowGroupLimits = { rows: 1000, tokens: 500_000 };

/**
 * The same file as rlRecordsToParquet, written as a stream: records are taken one at a time,
 * and each row group is encoded and flushed to `file` as soon as it holds `limits.rows` rows or
 * `limits.tokens` tokens, so memory holds one row group and not the whole export. Returns the
 * number of rows written.
 */
export function writeRlParquet(file: string, records: Iterable<RlRecord>, limits: RowGroupLimits = DEFAULT_LIMITS): number {
  const writer = new ParquetWriter({ writer: fileWriter(file), schema: SCHEMA as never, kvMetadata: KV_METADATA });
  let batch: RlRecord[] = [];
  let tokens = 0;
  let rows = 0;
  const flush = () => {
    if (batch.length === 0) return;
    writer.write({ columnData: columnsOf(batch).map(({ name, data }) => ({ name, data: data as never })), rowGroupSize: batch.length });
    rows += batch.length;
    batch = [];
    tokens = 0;
  };
  for (const r of records) {
    batch.push(r);
    tokens += r.input_ids.length;
    if (batch.length >= limits.rows || tokens >= limits.tokens) flush();
  }
  flush();
  writer.finish();
  return rows;
}

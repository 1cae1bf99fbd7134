import { parquetWriteBuffer } from "hyparquet-writer";
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

/**
 * The rl-jsonl columns as a Parquet file (hyparquet-writer: pure JS, no native addon): token lists as
 * list<int32> / list<float>, so pandas, pyarrow, datasets and DuckDB read them as arrays; the reward
 * components as JSON text (their names differ between environments).
 */
export function rlRecordsToParquet(records: readonly RlRecord[]): Uint8Array {
  const col = <K extends keyof RlRecord>(k: K) => records.map((r) => r[k]);
  const columns: Array<{ name: string; data: unknown[]; schema: Element[] }> = [
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
  const buf = parquetWriteBuffer({
    columnData: columns.map(({ name, data }) => ({ name, data: data as never })),
    schema: [{ name: "root", num_children: columns.length }, ...columns.flatMap((c) => c.schema)] as never,
    kvMetadata: [{ key: "rlenv.format", value: "rl-parquet/1" }],
  });
  return new Uint8Array(buf);
}

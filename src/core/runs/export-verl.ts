import { parquetWriteBuffer } from "hyparquet-writer";
import type { Environment } from "../model/environment";
import { renderTemplate } from "../model/prompt-template";

/**
 * One task as a row of verl's RL dataset (`data.train_files`, read by verl's RLHFDataset): the
 * columns of verl's own data preprocessors, plus `agent_name` for its agent loop.
 */
export interface VerlRow {
  /** `rlenv/<environment>`: what verl's reward dispatch (`compute_score(data_source, …)`) keys on. */
  data_source: string;
  /** The chat the policy starts from, as a rollout starts it: the environment's system prompt, then the task's user message. */
  prompt: Array<{ role: string; content: string }>;
  /** The environment's domain (code, document, scene3d, custom). */
  ability: string;
  /**
   * `style: "rlenv"`: the reward is the environment's verifier run on what the agent left in its
   * sandbox, not a string compared to a reference; `ground_truth` is the task id it is looked up by.
   * The hidden tests never enter the dataset (the policy's trainer reads it, and so may the policy's tools).
   */
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    split: string;
    index: number;
    env: string;
    env_dir: string;
    env_hash: string;
    task_id: string;
    /** For a verl interaction (`interaction_kwargs.name` picks it): which environment and task to reset. */
    interaction_kwargs: { name: string; env_dir: string; task_id: string };
  };
  /** verl's agent loop to run the row with: the tool-calling loop (rlenv environments are multi-turn tool environments). */
  agent_name: string;
}

/** Every task of the environments as verl rows, numbered across them in order. */
export function verlRows(envs: readonly Environment[], split: string): VerlRow[] {
  const rows: VerlRow[] = [];
  for (const env of envs)
    for (const task of env.tasks) {
      const system = renderTemplate(env.prompts.system, env, task);
      const prompt = [
        ...(system.trim() ? [{ role: "system", content: system }] : []),
        { role: "user", content: renderTemplate(env.prompts.user, env, task) },
      ];
      rows.push({
        data_source: `rlenv/${env.manifest.name}`,
        prompt,
        ability: env.manifest.domain,
        reward_model: { style: "rlenv", ground_truth: task.id },
        extra_info: {
          split,
          index: rows.length,
          env: env.manifest.name,
          env_dir: env.dir,
          env_hash: env.hash,
          task_id: task.id,
          interaction_kwargs: { name: "rlenv", env_dir: env.dir, task_id: task.id },
        },
        agent_name: "tool_agent",
      });
    }
  return rows;
}

type Element = Record<string, unknown>;
const str = (name: string): Element => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" });
const struct = (name: string, children: Element[][]): Element[] => [
  { name, repetition_type: "REQUIRED", num_children: children.length },
  ...children.flat(),
];

/**
 * The rows as Parquet with verl's nested types, as its example datasets (gsm8k, DAPO-Math) hold
 * them: `prompt` list<struct<role, content>>, `reward_model` and `extra_info` structs, so
 * `datasets`/pandas give back lists of dicts and dicts.
 */
export function verlRowsToParquet(rows: readonly VerlRow[]): Uint8Array {
  const columns: Array<{ name: keyof VerlRow; schema: Element[] }> = [
    { name: "data_source", schema: [str("data_source")] },
    {
      name: "prompt",
      schema: [
        { name: "prompt", repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        ...struct("element", [[str("role")], [str("content")]]),
      ],
    },
    { name: "ability", schema: [str("ability")] },
    { name: "reward_model", schema: struct("reward_model", [[str("style")], [str("ground_truth")]]) },
    {
      name: "extra_info",
      schema: struct("extra_info", [
        [str("split")],
        [{ name: "index", type: "INT64", repetition_type: "REQUIRED" }],
        [str("env")],
        [str("env_dir")],
        [str("env_hash")],
        [str("task_id")],
        struct("interaction_kwargs", [[str("name")], [str("env_dir")], [str("task_id")]]),
      ]),
    },
    { name: "agent_name", schema: [str("agent_name")] },
  ];
  const buf = parquetWriteBuffer({
    columnData: columns.map(({ name }) => ({
      name,
      data: rows.map((r) => (name === "extra_info" ? { ...r.extra_info, index: BigInt(r.extra_info.index) } : r[name])) as never,
    })),
    schema: [{ name: "root", num_children: columns.length }, ...columns.flatMap((c) => c.schema)] as never,
    kvMetadata: [{ key: "rlenv.format", value: "verl-dataset/1" }],
  });
  return new Uint8Array(buf);
}

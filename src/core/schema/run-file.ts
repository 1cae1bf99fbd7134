import { z } from "zod";

const count = z.number().int().nonnegative();

/**
 * `rlenv run -c FILE`: a run's options in a YAML or JSON file, as Harbor's job config. Every
 * key is a `run` flag spelled in snake_case (`--base-url` is `base_url`, `-k` is `samples`);
 * a flag on the command line overrides the file. Paths are relative to the file's folder.
 * Unknown keys are errors, so a misspelt option is never silently dropped.
 */
export const RunFile = z
  .strictObject({
    env: z.string().min(1).optional().describe("The environment folder (the `[dir]` argument)"),
    policy: z
      .string()
      .regex(/^(oracle|nop|openai|replay:.+)$/, "must be oracle, nop, openai or replay:FILE|RUN_DIR")
      .optional()
      .describe("oracle, nop, openai or replay:FILE|RUN_DIR (default oracle)"),
    model: z.string().min(1).optional().describe("openai: model name"),
    base_url: z.string().min(1).optional().describe("openai: server URL, e.g. http://127.0.0.1:8000/v1"),
    temperature: z.number().optional().describe("openai: sampling temperature"),
    top_p: z.number().optional().describe("openai: nucleus sampling"),
    max_tokens: count.optional().describe("openai: completion token limit per turn"),
    seed: count.optional().describe("Base seed (sample i gets seed + i)"),
    timeout_ms: count.optional().describe("openai: request timeout"),
    stream: z.boolean().optional().describe("openai: stream replies"),
    tokens: z.boolean().optional().describe("openai: token-in/token-out (needs `tokenizer`)"),
    tokenizer: z.string().min(1).optional().describe("openai `tokens`: model folder with tokenizer.json"),
    tool_parser: z.string().min(1).optional().describe("openai `tokens`: tool-call parser (hermes, qwen)"),
    tasks: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .optional()
      .describe("Task ids or globs: a list, or one string with commas between them"),
    tasks_file: z.string().min(1).optional().describe("A file of task ids, one a line"),
    limit: z.number().int().positive().optional().describe("Only the first N tasks"),
    samples: z.number().int().positive().optional().describe("Samples per task (`-k`; default 1)"),
    concurrency: z
      .union([z.literal("auto"), z.number().int().positive()])
      .optional()
      .describe('Concurrent rollouts, or "auto" (the default)'),
    max_concurrency: z.number().int().positive().optional().describe('`concurrency: "auto"`: the most rollouts in flight'),
    policy_concurrency: z.number().int().positive().optional().describe("In-flight policy requests"),
    sandbox: z.enum(["docker", "process", "auto"]).optional().describe("Sandbox backend (default auto)"),
    runs: z.string().min(1).optional().describe("Where run folders go: a folder or s3://bucket/prefix (default runs)"),
    run_id: z.string().min(1).optional().describe("Name of the run folder"),
    shard: z
      .string()
      .regex(/^\d+\/\d+$/, "must look like i/N (e.g. 0/4)")
      .optional()
      .describe("Run only shard i of N: i/N"),
    only_samples: z.record(z.string(), z.array(count).min(1)).optional().describe("Only these samples of these tasks: {task-id: [0, 3]}"),
    json: z.boolean().optional().describe("Print the summary as JSON on stdout"),
    progress_jsonl: z.boolean().optional().describe("Each rollout end as a JSON line on stderr"),
    unsafe_no_sandbox: z.boolean().optional().describe("process backend: run unisolated when nothing can isolate"),
    resume: z.string().min(1).optional().describe("Finish a killed or stopped run: its folder"),
    infra_retries: count.optional().describe("Tries after an infrastructure failure (default 2)"),
    build: z.boolean().optional().describe("false: do not build a missing sandbox image (`--no-build`)"),
  })
  .describe("A run's options (rlenv run -c FILE)");
export type RunFile = z.infer<typeof RunFile>;

/** Keys whose values are paths, resolved against the file's folder. */
export const RUN_FILE_PATHS = ["env", "tokenizer", "tasks_file", "runs", "resume"] as const satisfies ReadonlyArray<keyof RunFile>;

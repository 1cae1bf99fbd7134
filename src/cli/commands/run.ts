import { collectTaskIds, selectTaskIds } from "../task-ids";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Command, Option } from "commander";
import { checkPolicyFiles, readRunRequest } from "../../core/app/run-request";
import { type OpenedRun, openRun, startRun } from "../../core/app/start-run";
import type { RunRequest } from "../../core/schema/run-request";
import { formatProblem } from "../../core/model/problem";
import { checkTasksFile, readTasksFile } from "../../core/report/tasks-file";
import type { RunEnvironmentResult } from "../../core/rollout/run-environment";
import { type PolicyConfig, RunConfig } from "../../core/schema/run";
import { applyRunFile } from "./run-config-file";
import { progressPrinter } from "./run-progress";
import { runsTarget } from "./runs-target";

interface RunOptions {
  policy: string;
  model?: string;
  baseUrl?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  timeoutMs?: number;
  stream?: boolean;
  tokens?: boolean;
  tokenizer?: string;
  toolParser?: string;
  tasks?: string[];
  tasksFile?: string;
  limit?: number;
  k: number;
  concurrency: number | "auto";
  maxConcurrency?: number;
  policyConcurrency?: number;
  sandbox: "docker" | "process" | "auto";
  runs: string;
  runId?: string;
  shard?: string;
  onlySamples?: string;
  json?: boolean;
  progressJsonl?: boolean;
  unsafeNoSandbox?: boolean;
  infraRetries?: number;
  resume?: string;
  /** false under --no-build. */
  build?: boolean;
  /** A work unit's whole request, written by the runner's executors (not shown in --help). */
  request?: string;
}

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got '${v}'`);
  return n;
};
const num = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got '${v}'`);
  return n;
};

/** `--policy oracle|nop|openai|replay:FILE` plus the openai flags, as a PolicyConfig. */
export function policyFromFlags(o: RunOptions): PolicyConfig {
  const [kind, arg] = o.policy.includes(":")
    ? [o.policy.slice(0, o.policy.indexOf(":")), o.policy.slice(o.policy.indexOf(":") + 1)]
    : [o.policy, undefined];
  if (kind === "human")
    throw new Error('--policy human needs a person at the editor: open the task in VS Code and use "Play Task"; the CLI cannot play it');
  if (kind !== "oracle" && kind !== "nop" && kind !== "openai" && kind !== "replay")
    throw new Error(`--policy must be oracle, nop, openai or replay:FILE, got '${o.policy}'`);
  if (kind === "replay" && !arg) throw new Error("--policy replay needs a file or run folder: replay:runs/<id>");
  // Checked once here: otherwise every rollout starts and fails on the same missing file.
  if (kind === "replay" && arg && !existsSync(arg)) throw new Error(`--policy replay:${arg}: no such file or run folder`);
  if (o.tokens && !o.tokenizer) throw new Error("--tokens needs the model's tokenizer folder: --tokenizer DIR");
  if (o.tokenizer && !existsSync(path.join(o.tokenizer, "tokenizer.json")))
    throw new Error(`--tokenizer ${o.tokenizer}: no tokenizer.json in that folder`);
  return {
    kind,
    ...(arg ? { replay: path.resolve(arg) } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.topP !== undefined ? { top_p: o.topP } : {}),
    ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.timeoutMs !== undefined ? { timeout_ms: o.timeoutMs } : {}),
    ...(o.stream ? { stream: true } : {}),
    ...(o.tokens ? { tokens: true } : {}),
    ...(o.tokenizer ? { tokenizer: path.resolve(o.tokenizer) } : {}),
    ...(o.toolParser ? { tool_parser: o.toolParser } : {}),
  };
}

/** The ceiling of `--concurrency auto` when none is given: 4 rollouts a CPU, between 8 and 64. */
export function defaultMaxConcurrency(): number {
  return Math.min(64, Math.max(8, 4 * os.cpus().length));
}

/** `--only-samples {"task":[0,3]}`: which samples of which tasks; the tasks named become the run's tasks unless --tasks names them. */
export function parseOnlySamples(s: string): Record<string, number[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch (e) {
    throw new Error(`--only-samples: not JSON (${(e as Error).message})`);
  }
  const r = RunConfig.shape.samples.safeParse(raw);
  if (!r.success || !r.data) {
    const i = r.error?.issues[0];
    throw new Error(`--only-samples: ${i ? `${i.path.join(".") || "value"}: ${i.message}` : "needs an object"} (e.g. {"task-id":[0,3]})`);
  }
  return r.data;
}

export function parseShard(s: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m) throw new Error(`--shard must look like i/N (e.g. 0/4), got '${s}'`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new Error(`--shard ${s}: need 0 ≤ i < N`);
  return { index, count };
}

/** The policy's flags (`--policy` and the openai ones). */
function policyOptions(cmd: Command): Command {
  return cmd
    .option("--policy <policy>", "oracle, nop, openai or replay:FILE|RUN_DIR", "oracle")
    .option("--model <name>", "openai: model name")
    .option(
      "--base-url <url>",
      "openai: server URL, e.g. http://127.0.0.1:8000/v1 (or RLENV_BASE_URL); key from RLENV_API_KEY or OPENAI_API_KEY",
    )
    .option("--temperature <t>", "openai: sampling temperature", num("--temperature"))
    .option("--top-p <p>", "openai: nucleus sampling", num("--top-p"))
    .option("--max-tokens <n>", "openai: completion token limit per turn", int("--max-tokens"))
    .option("--seed <n>", "base seed (sample i gets seed + i)", int("--seed"))
    .option("--timeout-ms <ms>", "openai: request timeout", int("--timeout-ms"))
    .option("--stream", "openai: stream replies")
    .option("--tokens", "openai: token-in/token-out (the model's chat template renders, token ids go to /completions; needs --tokenizer)")
    .option("--tokenizer <dir>", "openai --tokens: model folder with tokenizer.json and tokenizer_config.json")
    .option("--tool-parser <name>", "openai --tokens: tool-call parser for the model family (hermes, qwen; default hermes)");
}

/** Which tasks and samples, and how many at once. */
function selectionOptions(cmd: Command): Command {
  return cmd
    .option(
      "--tasks <ids...>",
      "only these task ids (spaces or commas between them); globs such as 'humaneval-0*' pick by pattern",
      collectTaskIds,
    )
    .option("--limit <n>", "only the first N tasks (of --tasks / --tasks-file, else of the environment)", (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--limit must be a positive whole number, got '${v}'`);
      return n;
    })
    .option("--tasks-file <file>", "only the task ids in this file, one a line (# comments); rlenv report --emit-tasks writes one")
    .option("-k, --samples <n>", "samples per task", int("-k"), 1)
    .option(
      "--concurrency <n|auto>",
      "concurrent rollouts (sandboxes); auto grows them while the policy server's throughput rises and backs off when it does not",
      (v: string) => (v === "auto" ? "auto" : int("--concurrency")(v)),
      "auto",
    )
    .option(
      "--max-concurrency <n>",
      "--concurrency auto: the most rollouts in flight (default: 4 per CPU, 8 to 64)",
      int("--max-concurrency"),
    )
    .option("--policy-concurrency <n>", "in-flight policy requests (default: --concurrency)", int("--policy-concurrency"));
}

/** Where the run goes, how it is shown, and how it runs. */
function placeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        "--sandbox <backend>",
        "docker, process or auto; process isolates with bubblewrap, else unshare as root: RLENV_ISOLATION=bwrap|unshare forces one",
      )
        .choices(["auto", "docker", "process"])
        .default("auto"),
    )
    .option("--runs <dir>", "where run folders go", "runs")
    .option("--run-id <id>", "name of the run folder (default: time, env, random)")
    .option("--shard <i/N>", "run only shard i of N (tasks split round-robin)")
    .option("--only-samples <json>", 'only these samples of these tasks, as JSON: {"task-id":[0,3]} (a runner pool\'s shards)')
    .option("--json", "print the summary as JSON on stdout")
    .option("--progress-jsonl", "each rollout end as a JSON line on stderr (for `rlenv runner`)")
    .option("--unsafe-no-sandbox", "process backend: run unisolated when nothing can isolate")
    .option(
      "--resume <run-dir>",
      "finish a run whose process was killed or stopped: its own config and environment; only the rollouts that did not end run (the unfinished tries are kept under attempts/)",
    )
    .option(
      "--infra-retries <n>",
      "tries after an infrastructure failure (sandbox lost, policy server down), each in a fresh sandbox (default 2)",
      int("--infra-retries"),
    )
    .option("--no-build", "docker: do not build a missing sandbox image; fail naming the command that builds it")
    .addOption(new Option("--request <file>", "a work unit's run request (JSON), written by the runner's executors").hideHelp());
}

export function registerRun(program: Command): void {
  const cmd = program
    .command("run")
    .description("Roll out a policy on an environment's tasks; writes runs/<run-id>/ (trajectories, summary)")
    .argument("[dir]", "environment folder (default: the config file's env, else .)")
    .option(
      "-c, --config <file>",
      "run options from a YAML or JSON file: the flags in snake_case (base_url, samples); flags given here override it",
    );
  placeOptions(selectionOptions(policyOptions(cmd))).action(
    async (arg: string | undefined, o: Omit<RunOptions, "k"> & { samples: number; config?: string }, self: Command) => {
      const dir = o.config && !o.request ? applyRunFile(o.config, arg, o, self) : (arg ?? ".");
      const opts: RunOptions = { ...o, k: o.samples };
      // A local folder or s3://bucket/prefix (checked now, before any sandbox starts).
      const target = runsTarget(opts.runs);
      const { request, opened } = opts.request ? fromRequestFile(opts.request) : fromFlags(dir, opts, target.localDir);
      const r = await withInterrupt((signal, onProgress) => startRun(request, { opened, signal, onProgress }), opts.progressJsonl === true);
      const url = await target.publish(r.runDir).catch((e: unknown) => {
        throw new Error(`the run is in ${r.runDir}, but its upload to ${opts.runs} failed: ${(e as Error).message}`);
      });
      if (opts.json)
        process.stdout.write(
          `${JSON.stringify({ run_dir: r.runDir, ...(url ? { url } : {}), status: r.record.status, summary: r.summary }, null, 2)}\n`,
        );
      else printSummary(r, url);
      process.exitCode = exitCodeOf(r);
    },
  );
}

/** The environment the run takes (a resumed run's own), or its problems on stderr and an error. */
function openOrReport(envDir: string, resumeDir?: string): OpenedRun {
  const o = openRun(envDir, resumeDir);
  if (o.ok) return o;
  for (const p of o.errors) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
  throw new Error(
    `${o.envDir}: the environment has ${o.errors.length} problem${o.errors.length === 1 ? "" : "s"}; fix them first (rlenv validate)`,
  );
}

/** A work unit: its request as the executor wrote it; the run's own flags are not read. */
function fromRequestFile(file: string): { request: RunRequest; opened: OpenedRun } {
  const request = readRunRequest(file);
  checkPolicyFiles(request.config.policy);
  return { request, opened: openOrReport(request.env_dir, request.resume_dir) };
}

/** The flags as a run request: `--resume` read once, the task selection checked against the environment. */
function fromFlags(dir: string, opts: RunOptions, runsDir: string): { request: RunRequest; opened: OpenedRun } {
  if (!["docker", "process", "auto"].includes(opts.sandbox))
    throw new Error(`--sandbox must be docker, process or auto, got '${opts.sandbox}'`);
  // Resuming: the run's own environment and config, whatever the other flags say.
  const opened = openOrReport(dir, opts.resume);
  const tasks = selectedTasks(opts, opened);
  const config = opened.resumed?.config ?? configFromFlags(opts, tasks);
  const request: RunRequest = {
    env_dir: opened.envDir,
    runs_dir: runsDir,
    config: RunConfig.parse(config),
    ...(opts.runId ? { run_id: opts.runId } : {}),
    ...(opts.resume ? { resume_dir: path.resolve(opts.resume) } : {}),
    ...(opts.unsafeNoSandbox ? { unsafe_no_sandbox: true } : {}),
    ...(opts.build === false ? { no_build: true } : {}),
  };
  return { request, opened };
}

/** `--tasks`, `--tasks-file` and `--limit`, against the environment's task ids. */
function selectedTasks(opts: RunOptions, opened: OpenedRun): string[] | undefined {
  const { env } = opened;
  if (opts.tasksFile && opts.tasks) throw new Error("--tasks and --tasks-file: give one of them");
  // Checked here, against the environment, so a stale id is named with its line before any sandbox starts.
  const fileTasks = opts.tasksFile
    ? checkTasksFile(opts.tasksFile, readTasksFile(opts.tasksFile), new Set(env.tasks.map((t) => t.id)))
    : undefined;
  return selectTaskIds(
    { ...(opts.tasks ? { tasks: opts.tasks } : {}), ...(fileTasks ? { fileTasks } : {}), ...(opts.limit ? { limit: opts.limit } : {}) },
    env.tasks.map((t) => t.id),
  );
}

/** The run's config from its flags. */
export function configFromFlags(opts: RunOptions, tasks: string[] | undefined): RunConfig {
  return {
    policy: policyFromFlags(opts),
    k: opts.k,
    ...(opts.concurrency === "auto"
      ? { concurrency: Math.max(1, opts.maxConcurrency ?? defaultMaxConcurrency()), concurrency_auto: true }
      : { concurrency: Math.max(1, opts.concurrency) }),
    sandbox: opts.sandbox,
    ...(opts.policyConcurrency ? { policy_concurrency: opts.policyConcurrency } : {}),
    ...(tasks ? { tasks } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.shard ? { shard: parseShard(opts.shard) } : {}),
    ...(opts.onlySamples ? { samples: parseOnlySamples(opts.onlySamples) } : {}),
    ...(opts.infraRetries !== undefined ? { infra_retries: opts.infraRetries } : {}),
  };
}

/** Runs with Ctrl-C wired: the first stops cleanly (sandboxes closed, trajectories end `cancelled`); the second leaves now. */
async function withInterrupt(
  run: (signal: AbortSignal, onProgress: ReturnType<typeof progressPrinter>["onProgress"]) => Promise<RunEnvironmentResult>,
  progressJsonl: boolean,
): Promise<RunEnvironmentResult> {
  const ac = new AbortController();
  const onSigint = () => {
    if (ac.signal.aborted) process.exit(130);
    process.stderr.write("\nstopping: closing sandboxes (Ctrl-C again to quit at once)\n");
    ac.abort(new Error("interrupted (Ctrl-C)"));
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  const printer = progressPrinter(process.stderr, false, progressJsonl);
  try {
    const r = await run(ac.signal, printer.onProgress);
    printer.finish();
    return r;
  } finally {
    printer.finish();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}

/** The summary for a person: statuses, mean reward, pass@k, the commonest failures; the run's place on stdout. */
function printSummary(r: RunEnvironmentResult, url: string | undefined): void {
  const s = r.summary;
  const pk = Object.entries(s.pass_at_k)
    .map(([k, v]) => `pass@${k} ${v.toFixed(3)}`)
    .join("  ");
  const st = Object.entries(s.statuses)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  process.stderr.write(
    `${r.record.status}: ${s.rollouts} rollout${s.rollouts === 1 ? "" : "s"} (${st}); mean reward ${s.mean_reward === null ? "-" : s.mean_reward.toFixed(3)}  ${pk}\n`,
  );
  for (const f of (s.failures ?? []).slice(0, 5)) process.stderr.write(`  ${f.count}× ${f.reason}\n`);
  for (const f of (s.not_run ?? []).slice(0, 5))
    process.stderr.write(`  ${f.count}× not run, scored 0 (a check that did not run is never a pass): ${f.reason}\n`);
  if (s.infra_errors)
    process.stderr.write(
      `${s.infra_errors} rollout${s.infra_errors === 1 ? "" : "s"} ended on an infrastructure failure after every retry: not scored, left out of the mean and pass@k\n`,
    );
  if (s.utilisation)
    process.stderr.write(
      `policy utilisation ${(s.utilisation.policy * 100).toFixed(1)}%, sandbox busy ${(s.utilisation.sandbox_busy_ms / 1000).toFixed(1)} s, max policy queue ${s.utilisation.max_queue_depth}\n`,
    );
  process.stdout.write(`${url ?? r.runDir}\n`);
}

/** 130 when stopped, 1 when a rollout ended in error (the engine's or the infrastructure's), else 0. */
function exitCodeOf(r: RunEnvironmentResult): number {
  const s = r.summary;
  return r.record.status === "cancelled" ? 130 : (s.statuses.error ?? 0) > 0 || (s.infra_errors ?? 0) > 0 ? 1 : 0;
}

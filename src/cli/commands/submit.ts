import { collectTaskIds } from "../task-ids";
import path from "node:path";
import { type Command, Option } from "commander";
import { type JobRequest, submitJob } from "../../core/app/submit-job";
import { loadPool } from "../../core/fleet/pool-config";
import { runOnPool } from "../../core/fleet/pool-run";
import type { RunnerClient } from "../../core/remote/client/client";
import { runnerClientFor } from "../../core/remote/client/client-config";
import { formatEvent } from "./logs";

interface SubmitOptions {
  runner?: string;
  policy: string;
  model?: string;
  baseUrl?: string;
  policyCommand?: string;
  policyPort?: string;
  policyReadyTimeout?: string;
  tokens?: boolean;
  tokenizer?: string;
  toolParser?: string;
  tasks?: string[];
  k: string;
  concurrency: string;
  sandbox: "docker" | "process" | "auto";
  executor: "local" | "slurm";
  shards?: string;
  gpus?: string;
  partition?: string;
  retries?: string;
  elastic?: boolean;
  maxShards?: string;
  rolloutsPerShard?: string;
  name?: string;
  idempotencyKey?: string;
  follow?: boolean;
  pull?: string;
  json?: boolean;
  pool?: string;
  heartbeatS?: string;
  stallS?: string;
  keepShards?: boolean;
}

export function registerSubmit(program: Command): void {
  program
    .command("submit")
    .description("Submit an environment with a run config to a runner; prints the job id")
    .argument("[dir]", "environment folder", ".")
    .option("--runner <name>", "runner name from runners.yaml, or its URL ($RLENV_RUNNER)")
    .option("--policy <kind>", "oracle, nop, replay:FILE or openai", "oracle")
    .option("--model <model>", "model name (openai)")
    .option("--base-url <url>", "OpenAI-compatible server the runner reaches (openai)")
    .option("--policy-command <cmd>", "start the policy server with this command on the runner ($PORT); waits for /v1/models")
    .option("--policy-port <port>", "port for --policy-command", "8000")
    .option("--policy-ready-timeout <s>", "seconds --policy-command's server has to answer /v1/models (default 600)")
    .option("--tokens", "openai: token-in/token-out on the runner (needs --tokenizer)")
    .option("--tokenizer <dir>", "openai --tokens: the model's tokenizer folder on the runner host (tokenizer.json, tokenizer_config.json)")
    .option("--tool-parser <name>", "openai --tokens: tool-call parser for the model family (hermes, qwen)")
    .option("--tasks <ids...>", "only these task ids (spaces or commas between them)", collectTaskIds)
    .option("-k <n>", "samples per task", "1")
    .option("--concurrency <n>", "concurrent sandboxes", "4")
    .option(
      "--sandbox <backend>",
      "docker, process or auto, on the runner; process isolates with bubblewrap, else unshare as root: RLENV_ISOLATION=bwrap|unshare forces one (set it where the runner runs)",
      "auto",
    )
    .addOption(new Option("--executor <kind>", "local or slurm").choices(["local", "slurm"]).default("local"))
    .option("--shards <n>", "slurm: array tasks, each rlenv run --shard i/N")
    .option("--gpus <n>", "slurm: --gres=gpu:N for each shard")
    .option("--partition <name>", "slurm partition")
    .option("--retries <n>", "slurm: resubmissions of a failed shard")
    .option("--elastic", "slurm: size the array from the backlog and the partition's idle nodes, adding shards while rollouts wait")
    .option("--max-shards <n>", "slurm --elastic: most shards in Slurm at once")
    .option("--rollouts-per-shard <n>", "slurm --elastic: rollouts each shard takes")
    .option("--name <name>", "a name for the job")
    .option("--idempotency-key <key>", "a retried submit with the same key makes one job")
    .option("-f, --follow", "stream the job's events until it ends")
    .option("--pull <runs>", "pull the run folder into this runs folder as rollouts end; returns when the job has ended")
    .option("--json", "print the job record as JSON")
    .option(
      "--pool <name>",
      "split the job over a pool of runners from runners.yaml (pools:); the merged run goes to --pull (default runs)",
    )
    .option("--heartbeat-s <s>", "pool: a member silent this long is down (default: the pool's heartbeat_s)")
    .option("--stall-s <s>", "pool: a shard with no rollout ended this long while others progress moves (default: the pool's stall_s)")
    .option("--keep-shards", "pool: keep each shard's pulled folder under <runs>/.pool/<run id>")
    .action(async (dir: string, o: SubmitOptions) => {
      if (o.pool) {
        if (o.runner) throw new Error("--pool and --runner: give one of them");
        process.exitCode = await submitToPool(dir, o);
        return;
      }
      const client = runnerClientFor(o.runner);
      const { job, created } = await submitJob({
        client,
        envDir: dir,
        request: jobRequest(o),
        ...(o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {}),
      });
      if (o.json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
      else process.stdout.write(`${job.id}\n`);
      process.stderr.write(
        `${created ? "submitted" : "already submitted"}: job ${job.id} (${job.env.name}, ${job.progress.total} rollouts, ${job.spec.executor})\n`,
      );
      await followAndPull(client, job.id, o);
    });
}

function positiveInt(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} ${v}: expected a whole number above 0`);
  return n;
}

/** The job the flags ask for. */
function jobRequest(o: SubmitOptions): JobRequest {
  if (o.tokens && !o.tokenizer) throw new Error("--tokens needs the model's tokenizer folder on the runner host: --tokenizer DIR");
  if ((o.tokenizer || o.toolParser) && !o.tokens) throw new Error("--tokenizer and --tool-parser go with --tokens");
  if (o.policyReadyTimeout && !o.policyCommand) throw new Error("--policy-ready-timeout goes with --policy-command");
  return {
    ...(o.name ? { name: o.name } : {}),
    policy: o.policy,
    ...(o.model ? { model: o.model } : {}),
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.tasks ? { tasks: o.tasks } : {}),
    k: Number(o.k),
    concurrency: Number(o.concurrency),
    sandbox: o.sandbox,
    executor: o.executor,
    ...(o.executor === "slurm"
      ? {
          slurm: {
            ...(o.shards ? { shards: Number(o.shards) } : {}),
            ...(o.gpus ? { gpus: Number(o.gpus) } : {}),
            ...(o.partition ? { partition: o.partition } : {}),
            ...(o.retries ? { retries: Number(o.retries) } : {}),
            ...(o.elastic ? { elastic: true } : {}),
            ...(o.maxShards ? { maxShards: Number(o.maxShards) } : {}),
            ...(o.rolloutsPerShard ? { rolloutsPerShard: Number(o.rolloutsPerShard) } : {}),
          },
        }
      : {}),
    ...(o.policyCommand
      ? {
          policyServer: {
            command: o.policyCommand,
            port: positiveInt("--policy-port", o.policyPort ?? "8000"),
            ...(o.policyReadyTimeout ? { readyTimeoutS: positiveInt("--policy-ready-timeout", o.policyReadyTimeout) } : {}),
          },
        }
      : {}),
    ...(o.tokens ? { tokens: true } : {}),
    ...(o.tokenizer ? { tokenizer: o.tokenizer } : {}),
    ...(o.toolParser ? { toolParser: o.toolParser } : {}),
  };
}

async function followAndPull(client: RunnerClient, jobId: string, o: SubmitOptions): Promise<void> {
  const job = { id: jobId };
  let final = "";
  // Both at once: the run folder fills while the events stream, so the job's end leaves little to move.
  await Promise.all([
    o.follow
      ? client.followEvents(job.id, (ev) => {
          process.stderr.write(`${formatEvent(ev)}\n`);
          if (ev.type === "state") final = ev.state;
        })
      : undefined,
    o.pull
      ? client.pull(job.id, path.resolve(o.pull), { follow: true }).then((r) => {
          final = r.state;
          process.stderr.write(`pulled ${r.files} files into ${path.relative(process.cwd(), r.dir) || r.dir}\n`);
        })
      : undefined,
  ]);
  if (o.follow || o.pull) process.exitCode = final === "completed" ? 0 : 1;
}

function positive(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number of seconds, got '${v}'`);
  return n;
}

/** `submit --pool`: the job split over the pool's members, merged into one run folder; exit 0 when every rollout came home. */
async function submitToPool(dir: string, o: SubmitOptions): Promise<number> {
  const heartbeat = positive("--heartbeat-s", o.heartbeatS);
  const stall = positive("--stall-s", o.stallS);
  const pool = loadPool(o.pool ?? "", { ...(heartbeat ? { heartbeat_s: heartbeat } : {}), ...(stall ? { stall_s: stall } : {}) });
  if (o.executor !== "local")
    throw new Error("--pool runs each shard with its member's local executor; --executor slurm goes to one runner");
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once("SIGINT", onSigint);
  let shown = "";
  try {
    const { runDir, record } = await runOnPool({
      pool,
      envDir: dir,
      request: jobRequest(o),
      runsDir: path.resolve(o.pull ?? "runs"),
      signal: ac.signal,
      ...(o.keepShards ? { keepShards: true } : {}),
      log: (line) => process.stderr.write(`pool ${pool.name}: ${line}\n`),
      onProgress: (p) => {
        const line = `${p.rollouts.kept}/${p.rollouts.expected} rollouts · ${p.members.map((m) => `${m.name} ${m.state}`).join(" · ")}`;
        if (line !== shown && (o.follow || p.state !== "running")) process.stderr.write(`${line}\n`);
        shown = line;
      },
    });
    if (o.json) process.stdout.write(`${JSON.stringify({ run_dir: runDir, ...record }, null, 2)}\n`);
    else process.stdout.write(`${runDir}\n`);
    process.stderr.write(
      `pool ${pool.name}: ${record.state}: ${record.rollouts.kept}/${record.rollouts.expected} rollouts in ${path.relative(process.cwd(), runDir) || runDir}; ${record.failovers.length} failover(s), ${record.duplicates.length} duplicate(s)${record.error ? `; ${record.error}` : ""}\n`,
    );
    return record.state === "completed" ? 0 : 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

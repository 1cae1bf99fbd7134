import path from "node:path";
import type { Command } from "commander";
import { submitJob } from "../../core/app/submit-job";
import { runnerClientFor } from "../../core/remote/client-config";
import { formatEvent } from "./logs";

interface SubmitOptions {
  runner?: string;
  policy: string;
  model?: string;
  baseUrl?: string;
  policyCommand?: string;
  policyPort?: string;
  tasks?: string[];
  k: string;
  concurrency: string;
  sandbox: "docker" | "process" | "auto";
  executor: "local" | "slurm";
  shards?: string;
  gpus?: string;
  partition?: string;
  retries?: string;
  name?: string;
  idempotencyKey?: string;
  follow?: boolean;
  pull?: string;
  json?: boolean;
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
    .option("--tasks <ids...>", "only these task ids")
    .option("-k <n>", "samples per task", "1")
    .option("--concurrency <n>", "concurrent sandboxes", "4")
    .option(
      "--sandbox <backend>",
      "docker, process or auto, on the runner; process isolates with bubblewrap, else unshare as root: RLENV_ISOLATION=bwrap|unshare forces one (set it where the runner runs)",
      "auto",
    )
    .option("--executor <kind>", "local or slurm", "local")
    .option("--shards <n>", "slurm: array tasks, each rlenv run --shard i/N")
    .option("--gpus <n>", "slurm: --gres=gpu:N for each shard")
    .option("--partition <name>", "slurm partition")
    .option("--retries <n>", "slurm: resubmissions of a failed shard")
    .option("--name <name>", "a name for the job")
    .option("--idempotency-key <key>", "a retried submit with the same key makes one job")
    .option("-f, --follow", "stream the job's events until it ends")
    .option("--pull <runs>", "pull the run folder into this runs folder as rollouts end; returns when the job has ended")
    .option("--json", "print the job record as JSON")
    .action(async (dir: string, o: SubmitOptions) => {
      const client = runnerClientFor(o.runner);
      const { job, created } = await submitJob({
        client,
        envDir: dir,
        request: {
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
                },
              }
            : {}),
          ...(o.policyCommand ? { policyServer: { command: o.policyCommand, port: Number(o.policyPort ?? 8000) } } : {}),
        },
        ...(o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {}),
      });
      if (o.json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
      else process.stdout.write(`${job.id}\n`);
      process.stderr.write(
        `${created ? "submitted" : "already submitted"}: job ${job.id} (${job.env.name}, ${job.progress.total} rollouts, ${job.spec.executor})\n`,
      );
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
    });
}

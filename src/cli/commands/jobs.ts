import type { Command } from "commander";
import { runnerClientFor } from "../../core/remote/client-config";

export function registerJobs(program: Command): void {
  program
    .command("jobs")
    .description("List a runner's jobs (or show one; --cancel cancels it)")
    .argument("[job]", "one job id")
    .option("--runner <name>", "runner name or URL ($RLENV_RUNNER)")
    .option("--cancel", "cancel the job (its Slurm jobs and containers too)")
    .option("--json", "print JSON")
    .action(async (jobId: string | undefined, o: { runner?: string; cancel?: boolean; json?: boolean }) => {
      const client = runnerClientFor(o.runner);
      if (jobId) {
        const job = o.cancel ? await client.cancel(jobId) : await client.job(jobId);
        if (o.json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
        else
          process.stdout.write(
            `${job.id} ${job.state} ${job.progress.done}/${job.progress.total} ${job.env.name} ${job.spec.executor}${job.error ? ` — ${job.error}` : ""}\n`,
          );
        return;
      }
      if (o.cancel) throw new Error("--cancel needs a job id");
      const jobs = await client.jobs();
      if (o.json) {
        process.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`);
        return;
      }
      if (jobs.length === 0) process.stderr.write("no jobs\n");
      for (const j of jobs) {
        const reward = j.progress.mean_reward === null ? "-" : j.progress.mean_reward.toFixed(3);
        process.stdout.write(
          `${j.id}  ${j.state.padEnd(11)} ${`${j.progress.done}/${j.progress.total}`.padStart(9)}  reward ${reward}  ${j.env.name}  ${j.spec.executor}  ${j.created}\n`,
        );
      }
    });
}

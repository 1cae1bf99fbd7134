import { Argument, type Command } from "commander";
import { suggestWords } from "../completion";
import { jobIdArgument } from "../completion-sources";
import { runnerClientFor } from "../../core/remote/client/client-config";

export function registerJobs(program: Command): void {
  program
    .command("jobs")
    .description("List a runner's jobs, show one, or cancel one (`jobs cancel ID`)")
    .addArgument(jobIdArgument(suggestWords(new Argument("[job]", "one job id, or `cancel`"), ["cancel"])))
    .addArgument(jobIdArgument(new Argument("[id]", "with cancel: the job to cancel"), { afterFirst: "cancel" }))
    .option("--runner <name>", "runner name or URL ($RLENV_RUNNER)")
    .option("--cancel", "cancel the job (its Slurm jobs and containers too); the same as `jobs cancel ID`")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExamples:\n  rlenv jobs --runner gpu1\n  rlenv jobs 3f2a9c --json\n  rlenv jobs cancel 3f2a9c")
    .action(async (first: string | undefined, second: string | undefined, o: { runner?: string; cancel?: boolean; json?: boolean }) => {
      // `jobs cancel ID`, the verb as other CLIs have it, is `jobs ID --cancel`.
      let jobId = first;
      if (first === "cancel") {
        if (!second) throw new Error("jobs cancel needs a job id: rlenv jobs cancel ID");
        jobId = second;
        o.cancel = true;
      } else if (second) throw new Error(`jobs takes one job id, got '${first}' and '${second}' (to cancel: rlenv jobs cancel ID)`);
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

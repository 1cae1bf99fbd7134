import path from "node:path";
import { Argument, type Command } from "commander";
import { jobIdArgument } from "../completion-sources";
import { runnerClientFor } from "../../core/remote/client/client-config";
import { runsTarget } from "./runs-target";

export function registerPull(program: Command): void {
  program
    .command("pull")
    .description("Download a job's run folder into runs/ (while it runs: a snapshot, or -f to fill it as rollouts end)")
    .addArgument(jobIdArgument(new Argument("<job>", "job id")))
    .option("--runner <name>", "runner name or URL ($RLENV_RUNNER)")
    .option("--runs <dir>", "runs folder, or s3://bucket/prefix (uploaded once pulled)", "runs")
    .option("-f, --follow", "keep pulling rollouts as they end until the job ends")
    .action(async (jobId: string, o: { runner?: string; runs: string; follow?: boolean }) => {
      const target = runsTarget(o.runs);
      const client = runnerClientFor(o.runner);
      const r = await client.pull(jobId, target.localDir, { follow: o.follow ?? false });
      process.stderr.write(`pulled ${r.files} files of job ${jobId} (${r.state})\n`);
      const url = await target.publish(r.dir);
      process.stdout.write(`${url ?? (path.relative(process.cwd(), r.dir) || r.dir)}\n`);
    });
}

import { Argument, type Command } from "commander";
import { jobIdArgument } from "../completion-sources";
import type { JobEvent } from "../../core/remote/api";
import { runnerClientFor } from "../../core/remote/client/client-config";

/** One line for a job event. */
export function formatEvent(ev: JobEvent): string {
  const time = new Date(ev.t).toISOString().slice(11, 19);
  switch (ev.type) {
    case "state":
      return `${time} state ${ev.state}${ev.reason ? `: ${ev.reason}` : ""}`;
    case "progress":
      return `${time} progress ${ev.done}/${ev.total}${ev.mean_reward !== null ? ` mean reward ${ev.mean_reward.toFixed(3)}` : ""}`;
    case "rollout-end":
      return `${time} rollout ${ev.task}#${ev.sample} ${ev.status}${ev.reward !== null ? ` reward ${ev.reward}` : ""}`;
    case "log":
      return `${time} ${ev.unit ? `[${ev.unit}] ` : ""}${ev.line}`;
    case "gpu":
      return `${time} gpu ${ev.gpus.map((g) => `#${g.index} ${g.utilisation}%`).join(" ")}`;
  }
}

export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("Print a job's events (state, progress, rollout ends, logs); -f follows until it ends")
    .addArgument(jobIdArgument(new Argument("<job>", "job id")))
    .option("--runner <name>", "runner name or URL ($RLENV_RUNNER)")
    .option("-f, --follow", "keep streaming until the job ends")
    .option("--after <id>", "only events after this event id", "0")
    .option("--json", "one JSON event a line")
    .action(async (jobId: string, o: { runner?: string; follow?: boolean; after: string; json?: boolean }) => {
      const client = runnerClientFor(o.runner);
      const abort = new AbortController();
      const print = (ev: JobEvent) => process.stdout.write(`${o.json ? JSON.stringify(ev) : formatEvent(ev)}\n`);
      if (!o.follow) {
        // Without -f: what is there now. The stream is read until it goes quiet.
        let timer: NodeJS.Timeout | undefined;
        const quiet = () => {
          clearTimeout(timer);
          timer = setTimeout(() => abort.abort(), 300);
        };
        quiet();
        await client.followEvents(
          jobId,
          (ev) => {
            print(ev);
            quiet();
          },
          { signal: abort.signal, after: Number(o.after) },
        );
        clearTimeout(timer);
        return;
      }
      process.once("SIGINT", () => abort.abort());
      await client.followEvents(jobId, print, { signal: abort.signal, after: Number(o.after) });
    });
}

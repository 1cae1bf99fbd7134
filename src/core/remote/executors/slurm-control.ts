import { execFile } from "node:child_process";

/**
 * What slurmrestd's v0.0.38 API cannot do, done with Slurm's own `scontrol` (on the
 * login node where the runner runs): its job description refuses `excluded_nodes`, so a
 * shard that must avoid nodes is submitted held, given its exclusions, then released.
 */
export class SlurmControl {
  constructor(private readonly opts: { scontrol?: string; slurmConf?: string } = {}) {}

  private run(args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(
        this.opts.scontrol ?? "scontrol",
        args,
        { timeout: 30_000, env: { ...process.env, ...(this.opts.slurmConf ? { SLURM_CONF: this.opts.slurmConf } : {}) } },
        (err, _stdout, stderr) => (err ? reject(new Error(`scontrol ${args.join(" ")}: ${stderr.trim() || err.message}`)) : resolve()),
      );
    });
  }

  /** Keeps a held job (every task of an array) off these nodes, then lets it run. */
  async excludeAndRelease(jobId: number, nodes: readonly string[]): Promise<void> {
    if (nodes.length > 0) await this.run(["update", `JobId=${jobId}`, `ExcNodeList=${nodes.join(",")}`]);
    await this.run(["release", String(jobId)]);
  }
}

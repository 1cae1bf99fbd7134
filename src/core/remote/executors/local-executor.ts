import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { WorkUnit } from "../api";
import type { ExecutionContext, Executor } from "../jobs/executor";
import { shuttingDown, unitEnded } from "../jobs/executor";
import { rolloutErrorClass } from "../jobs/error-class";
import { parseObservationLine, parseRolloutEndLine } from "../progress-line";
import { planRemainder } from "../jobs/remainder";
import { unitFinishedRun, unitRequest, writeUnitRequest } from "./unit-request";
import { onStreamLines } from "../stream-lines";

const KILL_GRACE_MS = 10_000;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

/** Runs a job on this machine: `rlenv run` child processes, one unit at a time. */
export class LocalExecutor implements Executor {
  readonly kind = "local" as const;
  readonly reportsRolloutEnds = true;

  plan(): WorkUnit[] {
    return [{ id: "u0", state: "pending", attempts: 0, runs_dir: "units/u0", keep: "all" }];
  }

  async execute(ctx: ExecutionContext): Promise<void> {
    for (;;) {
      if (ctx.signal.aborted) return;
      const unit = ctx.job().units.find((u) => !unitEnded(u) && u.state !== "interrupted");
      if (!unit) return;
      await this.runUnit(ctx, unit);
      const after = ctx.job().units.find((u) => u.id === unit.id);
      if (after?.state === "failed") return;
    }
  }

  /**
   * A unit left running by a killed runner: end its process group if it lives on, and
   * replace it by a remainder unit that covers only the rollouts it had not finished.
   */
  async recover(ctx: ExecutionContext): Promise<void> {
    for (const unit of ctx.job().units) {
      if (unit.state !== "running" && unit.state !== "interrupted") continue;
      if (unit.pgid && isOurProcessGroup(unit.pgid, ctx.jobId)) {
        try {
          process.kill(-unit.pgid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      ctx.update((job) => {
        const u = job.units.find((x) => x.id === unit.id);
        if (u) u.state = "interrupted";
      });
    }
    planRemainder(ctx);
  }

  private runUnit(ctx: ExecutionContext, unit: WorkUnit): Promise<void> {
    const runsDir = ctx.unitRunsDir(unit);
    mkdirSync(runsDir, { recursive: true });
    const [cmd, ...pre] = ctx.rlenvCommand;
    if (!cmd) throw new Error("no rlenv command configured");
    // --progress-jsonl: rollout ends come as lines on the child's stderr (see progress-line.ts).
    // The unit's whole request goes as a file, so no field of the job's config is lost on the way.
    const request = unitRequest(ctx.envDir, runsDir, ctx.job().spec.config, unit, ctx.policyBaseUrl);
    const args = [...pre, ...writeUnitRequest(request), "--progress-jsonl"];
    ctx.log(`unit ${unit.id}: rlenv ${args.slice(pre.length).join(" ")}`, unit.id);
    // Own process group, so cancel reaches the whole tree; RLENV_JOB marks it as ours after a restart.
    // With setpriv, the unit dies with the runner (even on SIGKILL), so a restarted runner
    // never races an orphan writing into the same run folder.
    const [exe, argv] = SETPRIV ? [SETPRIV, ["--pdeathsig", "KILL", "--", cmd, ...args]] : [cmd, args];
    const child = spawn(exe, argv, { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RLENV_JOB: ctx.jobId } });
    ctx.update((job) => {
      const u = job.units.find((x) => x.id === unit.id);
      if (!u) return;
      u.state = "running";
      u.attempts += 1;
      if (child.pid) u.pgid = child.pid;
    });
    // Other output is batched into one log event per 200 ms; rollout ends go out as
    // their own events, not as log lines as well.
    let pending: string[] = [];
    const flush = () => {
      if (pending.length > 0) ctx.log(pending.join("\n"), unit.id);
      pending = [];
    };
    const flusher = setInterval(flush, 200);
    for (const stream of [child.stdout, child.stderr]) {
      onStreamLines(stream, (line) => {
        const end = parseRolloutEndLine(line);
        const observed = end ? undefined : parseObservationLine(line);
        if (end) {
          ctx.rolloutEnded(unit.id, end);
          const errorClass = rolloutErrorClass(end);
          if (errorClass) ctx.observe?.({ kind: "rollout-error", class: errorClass });
        } else if (observed) ctx.observe?.(observed);
        else if (line.trim()) pending.push(line);
      });
    }
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      signalGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
    };
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    return new Promise<void>((resolve) => {
      const finish = (code: number | null, error?: string) => {
        clearInterval(flusher);
        flush();
        ctx.signal.removeEventListener("abort", onAbort);
        if (killTimer) clearTimeout(killTimer);
        ctx.update((job) => {
          const u = job.units.find((x) => x.id === unit.id);
          if (!u) return;
          u.exit_code = code;
          const finished = code === 0 || (code === 1 && unitFinishedRun(runsDir));
          // Stopped by a runner shutdown: interrupted, so the restarted runner runs what it had not finished.
          u.state = ctx.signal.aborted ? (shuttingDown(ctx.signal) ? "interrupted" : "cancelled") : finished ? "completed" : "failed";
          if (error) u.error = error;
          else if (!finished && !ctx.signal.aborted) u.error = `rlenv run exited with ${code}`;
        });
        resolve();
      };
      child.on("error", (err) => finish(null, `could not start rlenv: ${err.message}`));
      child.on("close", (code, sig) => finish(code, sig && !ctx.signal.aborted ? `rlenv run killed by ${sig}` : undefined));
    });
  }
}

function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // the group is gone
  }
}

/** True when the process is alive and was started for this job (pids get reused). */
function isOurProcessGroup(pid: number, jobId: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    return environ.split("\0").includes(`RLENV_JOB=${jobId}`);
  } catch {
    return false;
  }
}

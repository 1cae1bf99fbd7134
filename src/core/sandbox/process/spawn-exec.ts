import { spawn } from "node:child_process";
import { fileSizeReason } from "../limit-reasons";
import { OutputCollector } from "../output";
import type { ExecOptions, ExecResult, SandboxRequest } from "../../model/sandbox";
import type { IsolatedLaunch } from "./agent-process";
import type { SandboxCgroup } from "./cgroup";
import { closingInherited } from "./close-fds";

/** What one spawned exec needs from its sandbox. */
export interface SpawnContext {
  req: SandboxRequest;
  cgroup: SandboxCgroup | null;
  /** Whether the launch isolates (a signal death of the isolating process then means something). */
  isolated: boolean;
  /** Called with a kill of the whole sandbox's commands (a timeout); counted so a kill nobody here sent can be told. */
  killAll(): void;
  /** Times the sandbox killed its own commands wholesale: a signal death it did not count came from outside. */
  ownKills(): number;
  /** Registers an abort for reset and close; returns its removal. */
  track(abort: () => void): () => void;
}

/** How a command's process ended, with what the sandbox saw around it. */
interface Ending {
  code: number | null;
  sig: NodeJS.Signals | null;
  /** Why the sandbox ended it itself: its timeout, or a cancel (abort, reset, close). */
  ending: "timeout" | "killed" | null;
  spawnError: Error | null;
  /** A cgroup OOM kill, a refused fork counted while it ran. */
  oom: boolean;
  forkRefused: boolean;
  /** Whether the sandbox killed its own commands wholesale while it ran. */
  ownKill: boolean;
}

/** The exec's result from how its process ended: the sandbox's own ending first, then OOM, an outside kill, or a plain exit. */
function resultOf(
  e: Ending,
  output: ReturnType<OutputCollector["result"]>,
  durationMs: number,
  opts: ExecOptions,
  ctx: SpawnContext,
): ExecResult {
  const o = output;
  const limits = ctx.req.limits;
  if (e.spawnError)
    return { status: "error", exitCode: null, ...o, durationMs, reason: `could not start the sandbox: ${e.spawnError.message}` };
  // bwrap reports a signal death of its child as 128+signal.
  const signalled = e.sig !== null || (e.code !== null && e.code > 128 && ctx.isolated);
  const exitCode = e.sig !== null ? null : e.code;
  if (e.ending === "timeout")
    return { status: "timeout", exitCode: null, ...o, durationMs, reason: `killed after ${(opts.timeoutMs ?? 0) / 1000} s timeout` };
  if (e.ending === "killed") return { status: "killed", exitCode: null, ...o, durationMs, reason: "cancelled" };
  if (e.oom && signalled)
    return { status: "oom", exitCode: null, ...o, durationMs, reason: `out of memory (OOM kill at the ${limits.memoryBytes} byte limit)` };
  if (e.sig !== null && ctx.isolated && !e.ownKill) {
    // The isolating process itself (outside the command's namespaces, where the command
    // cannot reach it) died of a signal nobody here sent: the sandbox was killed from outside.
    return {
      status: "error",
      exitCode: null,
      ...o,
      durationMs,
      reason: `the sandbox's processes were killed from outside (${e.sig})`,
      sandboxLost: true,
    };
  }
  const fileLimit = fileSizeReason(limits, exitCode);
  return {
    status: "ok",
    exitCode,
    ...o,
    durationMs,
    ...(e.forkRefused ? { reason: `fork refused: pids limit of ${limits.pids} reached` } : {}),
    ...(fileLimit ? { reason: fileLimit } : {}),
  };
}

/**
 * One command as its own process tree (new namespaces for it alone): the way the process
 * backend runs commands where it has no agent (nothing isolates and --unsafe-no-sandbox was
 * given, or the host has no Python to run the agent on).
 */
export function spawnExec(launch: IsolatedLaunch, opts: ExecOptions, ctx: SpawnContext): Promise<ExecResult> {
  const started = performance.now();
  const { env, cwd } = launch;
  const full = closingInherited(launch.full);
  const oomBefore = ctx.cgroup?.oomKills() ?? 0;
  const pidsBefore = ctx.cgroup?.pidsLimitHits() ?? 0;
  const out = new OutputCollector(opts.maxOutputBytes ?? ctx.req.limits.outputBytes);
  const ownKillsBefore = ctx.ownKills();

  return new Promise<ExecResult>((resolve) => {
    const child = spawn(full[0] ?? "", full.slice(1), { detached: true, env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let ending: "timeout" | "killed" | null = null;
    let spawnError: Error | null = null;
    const killTree = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
      ctx.killAll();
    };
    const onAbort = () => {
      ending ??= "killed";
      killTree();
    };
    const untrack = ctx.track(onAbort);
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          ending ??= "timeout";
          killTree();
        }, opts.timeoutMs)
      : null;
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => out.push("stdout", c));
    child.stderr.on("data", (c: Buffer) => out.push("stderr", c));
    child.stdin.on("error", () => {}); // a command that ignores stdin closes the pipe early
    child.stdin.end(opts.stdin ?? "");
    child.on("error", (e) => {
      spawnError = e;
    });
    child.on("close", (code, sig) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      untrack();
      const durationMs = performance.now() - started;
      const ended: Ending = {
        code,
        sig,
        ending,
        spawnError,
        oom: (ctx.cgroup?.oomKills() ?? 0) > oomBefore,
        forkRefused: (ctx.cgroup?.pidsLimitHits() ?? 0) > pidsBefore,
        ownKill: ctx.ownKills() !== ownKillsBefore,
      };
      resolve(resultOf(ended, out.result(), durationMs, opts, ctx));
    });
  });
}

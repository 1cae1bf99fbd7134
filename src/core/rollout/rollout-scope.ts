import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { abortReason } from "../util/backoff";
import { sandboxRequest } from "../sandbox/request";
import type { Sandbox, SandboxProvider } from "../model/sandbox";
import { RolloutTimeoutError, SandboxInfraError } from "./errors";
import { observe } from "../util/observations";
import { SandboxGuard } from "./sandbox-guard";
import { resetToSeed, taskSeed } from "../sandbox/task-files";

/** Tries at a sandbox before its failure is the rollout's: the warm ones a pool may hold, and one started anew. */
const JUDGE_STARTS = 3;

/**
 * A sandbox the pool handed over whose reset failed: a warm one that died while it waited, the
 * pool's staleness, so the next one is tried at once. A pool that cannot hand one over at all (an
 * engine not answering) is not retried here: the rollout's infra retries back off and wait for it.
 */
class StaleSandbox extends Error {}

export interface RolloutScopeOptions {
  env: Environment;
  task: LoadedTask;
  sandboxProvider: SandboxProvider;
  runId: string;
  rolloutId: string;
  /** The caller's signal: cancels the rollout, verification included. */
  signal?: AbortSignal;
  /** Workdir files written over the task's seed files once the sandbox is up (a fork's state); null deletes. */
  files?: Record<string, string | Buffer | null>;
}

/**
 * What one rollout holds that must be let go however it ends: its sandbox (started on first
 * use), the rollout deadline's timer and the listener on the caller's signal. Disposing
 * (`await using`) closes the sandbox and removes both; the sandbox's start and close are
 * counted on `sandboxMs`, apart from any phase that waited on them, so that they are counted once.
 */
export class RolloutScope implements AsyncDisposable {
  /** The agent loop's signal: the caller's cancellation or the rollout deadline. */
  readonly signal: AbortSignal;
  /** The caller's signal, if any: verification stops only for it, not for the deadline. */
  readonly outside: AbortSignal | undefined;
  /** Watches the sandbox for the machinery failing under the agent. */
  readonly guard = new SandboxGuard();
  /** Why the sandbox could not start, once it failed to. */
  startFailure: SandboxInfraError | null = null;
  /** Milliseconds spent starting and closing the sandbox, wherever that happened. */
  sandboxMs = 0;
  /** Milliseconds sandboxes were held (asked of the pool until handed back), the agent's and judging ones summed: sandbox-seconds. */
  heldMs = 0;

  private readonly ac = new AbortController();
  private readonly onOutside: () => void;
  private deadline: NodeJS.Timeout | undefined;
  private sandboxP: Promise<Sandbox> | null = null;
  /** When the agent's sandbox was asked for. */
  private agentSince: number | null = null;
  /** Judging sandboxes not yet closed, with when each was asked for. */
  private readonly extra = new Map<Sandbox, number>();
  private disposed = false;

  constructor(private readonly o: RolloutScopeOptions) {
    this.signal = this.ac.signal;
    this.outside = o.signal;
    const outside = o.signal;
    this.onOutside = () => this.ac.abort(abortReason(outside));
    if (outside?.aborted) this.onOutside();
    outside?.addEventListener("abort", this.onOutside, { once: true });
    const seconds = o.env.manifest.sandbox.timeouts.rollout;
    this.deadline = setTimeout(() => this.ac.abort(new RolloutTimeoutError(`rollout timeout (${seconds} s) reached`)), seconds * 1000);
  }

  /** The rollout's deadline ends the agent loop only: stop its clock once the loop is over. */
  stopDeadline(): void {
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  /** The sandbox, started and reset on first use; the same promise for every caller. */
  readonly sandbox = (): Promise<Sandbox> => {
    if (this.disposed) return Promise.reject(new SandboxInfraError("the rollout is over: its sandbox is closed"));
    this.sandboxP ??= this.acquire();
    return this.sandboxP;
  };

  /** Whether the rollout's sandbox was asked for (a rollout whose tools never needed one has none to judge). */
  get started(): boolean {
    return this.sandboxP !== null;
  }

  /**
   * A second sandbox of the rollout's shape from the pool (a judging sandbox), its workdir reset
   * to `files` in one call; watched by the same guard, so its loss is the rollout's infrastructure
   * error. The caller closes it; the scope closes it too if the rollout ends first.
   */
  async freshSandbox(files: Record<string, string | Buffer>): Promise<Sandbox> {
    if (this.disposed) throw new SandboxInfraError("the rollout is over: no sandbox can be started for it");
    const s0 = performance.now();
    try {
      // A warm sandbox that died while it waited in the pool is the pool's staleness, not this rollout's
      // failure: the next one is tried, past every warm one the pool may hold (two), before giving up.
      let sb: Sandbox | Error = new Error("no judging sandbox was tried");
      for (let attempt = 0; attempt < JUDGE_STARTS; attempt++) {
        sb = await this.startJudge(files).catch((e: Error) => e);
        if (!(sb instanceof StaleSandbox)) break;
      }
      if (sb instanceof Error) throw sb;
      observe({ kind: "sandbox-start", ms: performance.now() - s0 });
      // Held from the ask: the start counts as the judging sandbox's time.
      this.extra.set(sb, s0);
      return this.guard.wrap(sb);
    } catch (e) {
      this.heldMs += performance.now() - s0;
      if (this.outside?.aborted) throw abortReason(this.outside);
      const failure = new SandboxInfraError(`judging sandbox (${this.o.sandboxProvider.backend}) could not start: ${(e as Error).message}`);
      // Recorded as the rollout's loss too: a verifier that swallows the throw still cannot turn it into a zero.
      this.guard.lost ??= failure.message;
      throw failure;
    } finally {
      this.sandboxMs += performance.now() - s0;
    }
  }

  /** One judging sandbox from the pool, reset to `files`; closed again when that fails. */
  private async startJudge(files: Record<string, string | Buffer>): Promise<Sandbox> {
    const o = this.o;
    const labels = { "rlenv.run": o.runId, "rlenv.rollout": o.rolloutId, "rlenv.role": "judge" };
    // Recycled as the manifest allows, after the same clean slate as any sandbox (docker keeps judges in a pool of
    // their own by the role label; the process backend's pool takes no account of labels).
    const sb = await o.sandboxProvider.acquire(sandboxRequest(o.env, labels, this.outside));
    this.extra.set(sb, Number.NaN);
    try {
      await sb.reset(files);
      return sb;
    } catch (e) {
      await this.release(sb);
      throw new StaleSandbox((e as Error).message);
    }
  }

  /** Closes a sandbox from freshSandbox (back to the pool, reset, where it may be reused). */
  async release(sb: Sandbox): Promise<void> {
    for (const [x, since] of this.extra) {
      if (x.id !== sb.id) continue;
      this.extra.delete(x);
      const c0 = performance.now();
      await x.close().catch(() => {});
      this.sandboxMs += performance.now() - c0;
      // A stale try (NaN) is counted by freshSandbox's clock, which runs from the first ask.
      if (!Number.isNaN(since)) this.heldMs += performance.now() - since;
    }
  }

  /** Why the rollout's sandbox is lost, asking it when it was started; null while it answers (or never started). */
  async lost(): Promise<string | null> {
    const sb = this.sandboxP ? await this.sandboxP.catch(() => null) : null;
    return sb ? this.guard.probe(sb) : this.guard.lost;
  }

  /**
   * Why the rollout's sandbox cannot be believed, when something inside it wrote into its
   * agent's reply channel (the model's doing: see ChannelTampered); null otherwise.
   */
  async tampered(): Promise<string | null> {
    const sb = this.sandboxP ? await this.sandboxP.catch(() => null) : null;
    return sb?.tampered?.() ?? null;
  }

  /** Closes the sandbox and lets go of the timer and the listener; a second call does nothing. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.stopDeadline();
    this.disposed = true;
    const started = this.sandboxP;
    this.sandboxP = null;
    if (started) {
      const c0 = performance.now();
      await started.then((sb) => sb.close()).catch(() => {});
      this.sandboxMs += performance.now() - c0;
    }
    if (this.agentSince !== null) this.heldMs += performance.now() - this.agentSince;
    this.agentSince = null;
    for (const sb of [...this.extra.keys()]) await this.release(sb);
    this.outside?.removeEventListener("abort", this.onOutside);
  }

  /** One sandbox from the pool with the task's seed (and a fork's files); closed again when that fails. */
  private async startAgentSandbox(): Promise<Sandbox> {
    const o = this.o;
    const sb = await o.sandboxProvider.acquire(sandboxRequest(o.env, { "rlenv.run": o.runId, "rlenv.rollout": o.rolloutId }, this.signal));
    try {
      await resetToSeed(sb, taskSeed(o.task));
      if (o.files) await applyFiles(sb, o.files);
      return sb;
    } catch (e) {
      await sb.close().catch(() => {});
      throw new StaleSandbox((e as Error).message);
    }
  }

  private async acquire(): Promise<Sandbox> {
    const o = this.o;
    const s0 = performance.now();
    this.agentSince = s0;
    try {
      // A warm sandbox that died while it waited in the pool is not this rollout's failure: the next one is tried.
      let sb: Sandbox | Error = new Error("no sandbox was tried");
      for (let attempt = 0; attempt < JUDGE_STARTS && !this.signal.aborted; attempt++) {
        sb = await this.startAgentSandbox().catch((e: Error) => e);
        if (!(sb instanceof StaleSandbox)) break;
      }
      if (sb instanceof Error) throw sb;
      observe({ kind: "sandbox-start", ms: performance.now() - s0 });
      return this.guard.wrap(sb);
    } catch (e) {
      if (this.signal.aborted) throw abortReason(this.signal);
      this.startFailure = new SandboxInfraError(`sandbox (${o.sandboxProvider.backend}) could not start: ${(e as Error).message}`);
      throw this.startFailure;
    } finally {
      this.sandboxMs += performance.now() - s0;
    }
  }
}

/** Writes a fork's workdir state over the seed files (null: the file was deleted). */
async function applyFiles(sb: Sandbox, files: Record<string, string | Buffer | null>): Promise<void> {
  const write: Record<string, string | Buffer> = {};
  const gone: string[] = [];
  for (const [p, v] of Object.entries(files)) {
    if (v === null) gone.push(p);
    else write[p] = v;
  }
  if (Object.keys(write).length > 0) await sb.writeFiles(write);
  if (gone.length > 0) await sb.exec(["rm", "-f", "--", ...gone]);
}

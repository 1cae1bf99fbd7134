import type { ExecOptions, ExecResult, Sandbox } from "../model/sandbox";
import { SandboxInfraError } from "./errors";

/**
 * How long a liveness probe waits for the sandbox to answer. A live agent answers in
 * milliseconds; the margin is for a loaded machine, and it is only paid by a sandbox that
 * stopped answering (a paused or frozen container).
 */
export const PROBE_MS = 5_000;

/**
 * Watches one rollout's sandbox for the machinery failing under it: the container gone, the
 * agent's connection lost, a sandbox that stops answering. Tools and verifiers see the
 * sandbox through `wrap`, which turns such a failure into a SandboxInfraError instead of an
 * output the agent would be scored on; the guard remembers it (`lost`), so a tool or a
 * verifier that swallows the throw still cannot turn it into a reward.
 */
export class SandboxGuard {
  /** Why the sandbox is lost; null while it is sound. */
  lost: string | null = null;

  /** The error that ends the rollout as an infrastructure failure. */
  error(): SandboxInfraError {
    return new SandboxInfraError(`the sandbox was lost mid-rollout: ${this.lost ?? "unknown reason"}`);
  }

  private mark(reason: string): SandboxInfraError {
    this.lost ??= reason;
    return this.error();
  }

  /** Asks the sandbox whether it still answers; records and returns why not. */
  async probe(sb: Sandbox): Promise<string | null> {
    if (this.lost) return this.lost;
    if (!sb.probe) return null;
    const why = await sb.probe(PROBE_MS).catch((e: Error) => `the liveness probe failed: ${e.message}`);
    if (why) this.lost ??= why;
    return this.lost;
  }

  /** After an operation failed: is the sandbox to blame? Throws the infra error when it is. */
  private async blame(sb: Sandbox, failure: string | undefined): Promise<void> {
    const why = await this.probe(sb);
    if (why) throw this.mark(failure && failure !== why ? `${why} (${failure})` : why);
  }

  /** The sandbox as tools and verifiers get it: the same object, its failures checked. */
  wrap(sb: Sandbox): Sandbox {
    const exec = async (command: string | string[], opts?: ExecOptions): Promise<ExecResult> => {
      if (this.lost) throw this.error();
      const r = await sb.exec(command, opts);
      if (r.sandboxLost) throw this.mark(r.reason ?? "the sandbox failed");
      // `error` is the sandbox's own failure, or a request it refused (a bad cwd): the probe tells.
      if (r.status === "error") await this.blame(sb, r.reason);
      return r;
    };
    /** Operations that throw on failure: a throw from a lost sandbox becomes the infra error. */
    const checked =
      <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        if (this.lost) throw this.error();
        try {
          return await fn.apply(sb, a);
        } catch (e) {
          await this.blame(sb, (e as Error).message);
          throw e;
        }
      };
    const overrides: Partial<Record<keyof Sandbox, unknown>> = {
      exec,
      writeFiles: checked(sb.writeFiles),
      readFiles: checked(sb.readFiles),
      diff: checked(sb.diff),
      ...(sb.putWorkdirFiles ? { putWorkdirFiles: checked(sb.putWorkdirFiles) } : {}),
    };
    return new Proxy(sb, {
      get(target, prop, receiver) {
        if (typeof prop === "string" && prop in overrides) return overrides[prop as keyof Sandbox];
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  }
}

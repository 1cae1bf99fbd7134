import type Docker from "dockerode";
import { type BackoffOptions, sleep } from "../util/backoff";
import { dockerAnswers } from "../sandbox/docker/provider";
import type { SandboxProvider } from "../model/sandbox";

/**
 * The pause between an infrastructure failure and the rollout's next try. A daemon restart takes tens
 * of seconds: the 0.5 s start of the policy client's backoff spent every try within 2 s of one.
 */
export const INFRA_BACKOFF: BackoffOptions = { baseMs: 2_000, maxMs: 30_000 };

/** How long a rollout waits for its sandbox backend to answer again before its failure stands. */
export const DEFAULT_BACKEND_WAIT_MS = 180_000;

/** How often a backend that does not answer is asked again while waiting for it. */
const PROBE_EVERY_MS = 1_000;

/** Whether the provider's backend answers now: Docker's engine a ping; the process backend has no daemon to lose. */
export function backendProbe(provider: SandboxProvider): (() => Promise<boolean>) | undefined {
  const docker = (provider as { docker?: Docker }).docker;
  if (provider.backend !== "docker" || !docker) return undefined;
  return () => dockerAnswers(docker, 2_000);
}

/**
 * Waits until the backend answers (at once when it does, or has no daemon), asking every second, for at
 * most `maxWaitMs`. Resolves with how long it waited, or with null when it never answered in time.
 * Every rollout an outage failed waits here, then goes on when the engine is back, instead of spending
 * its tries while it is down. Rejects with the signal's reason when the run is cancelled.
 */
export async function waitForBackend(
  probe: (() => Promise<boolean>) | undefined,
  maxWaitMs: number,
  signal: AbortSignal,
): Promise<{ waitedMs: number } | null> {
  const t0 = Date.now();
  if (!probe) return { waitedMs: 0 };
  for (;;) {
    if (await probe()) return { waitedMs: Date.now() - t0 };
    if (Date.now() - t0 >= maxWaitMs) return null;
    await sleep(PROBE_EVERY_MS, signal);
  }
}

/** For runWithInfraRetries: waits for the provider's backend, and says why not when it did not answer in time. */
export function backendReadiness(
  provider: SandboxProvider,
  maxWaitMs: number,
  signal: AbortSignal,
  log: (message: string) => void,
): () => Promise<string | undefined> {
  return async () => {
    const waited = await waitForBackend(backendProbe(provider), maxWaitMs, signal);
    if (!waited) return `the ${provider.backend} backend did not answer for ${Math.round(maxWaitMs / 1000)} s`;
    if (waited.waitedMs > 0) log(`the ${provider.backend} backend answers again after ${Math.round(waited.waitedMs / 1000)} s`);
    return undefined;
  };
}

import os from "node:os";
import type { GpuInfo, RunnerStatus } from "../api";
import { queryGpus } from "../jobs/gpus";

/** Utilisation (percent) under which a GPU counts as idle for placing work. */
export const IDLE_GPU_PERCENT = 10;
/** How old a GPU sample the status may answer with: a heartbeat every few hundred ms must not run nvidia-smi each time. */
const GPU_SAMPLE_MS = 5000;

let lastGpus: { at: number; gpus: GpuInfo[]; pending?: Promise<void> } = { at: 0, gpus: [] };

/** The last GPU sample, refreshed in the background once it is older than GPU_SAMPLE_MS (the first call waits for one). */
async function recentGpus(): Promise<GpuInfo[]> {
  if (Date.now() - lastGpus.at > GPU_SAMPLE_MS && !lastGpus.pending) {
    const pending = queryGpus().then((r) => {
      lastGpus = { at: Date.now(), gpus: r.gpus };
    });
    lastGpus.pending = pending;
    if (lastGpus.at === 0) await pending;
  }
  return lastGpus.gpus;
}

export async function runnerStatus(
  version: string,
  jobs: { capacity: number; runningCount(): number; queued(): number },
): Promise<RunnerStatus> {
  const gpus = await recentGpus();
  const running = jobs.runningCount();
  return {
    ok: true,
    version,
    time: Date.now(),
    slots: { total: jobs.capacity, running, free: Math.max(0, jobs.capacity - running) },
    queue: jobs.queued(),
    gpus: { count: gpus.length, idle: gpus.filter((g) => g.utilisation < IDLE_GPU_PERCENT).length },
    cpus: os.availableParallelism(),
  };
}

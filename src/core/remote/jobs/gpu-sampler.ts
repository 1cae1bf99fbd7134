import type { GpuInfo } from "../api";
import { queryGpus } from "./gpus";

/**
 * Samples the host's GPUs every few seconds while jobs run, keeping the mean utilisation
 * (0-1) for the metrics page and handing each sample to the running jobs.
 */
export class GpuSampler {
  /** Mean utilisation of all GPUs at the last sample, 0-1. */
  lastUtilisation: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Seconds between samples; 0 or less: never sample. */
    private readonly everyS: number,
    /** The jobs running now: a sample is taken only while there are some. */
    private readonly running: () => Iterable<string>,
    private readonly onSample: (jobId: string, gpus: GpuInfo[]) => void,
  ) {}

  /** Starts the timer (once); it does not keep the process alive. */
  start(): void {
    if (this.everyS <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.sample(), this.everyS * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sample(): Promise<void> {
    const ids = [...this.running()];
    if (ids.length === 0) return;
    const { gpus } = await queryGpus();
    if (gpus.length === 0) return;
    this.lastUtilisation = gpus.reduce((a, g) => a + g.utilisation, 0) / gpus.length / 100;
    for (const id of this.running()) this.onSample(id, gpus);
  }
}

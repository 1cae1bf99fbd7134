import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { JobState } from "./api";
import type { JobManager } from "./jobs";
import { mergedRunDir } from "./merge";

/** `GET /metrics` in the Prometheus text exposition format. */
export function renderMetrics(jobs: JobManager): string {
  const lines: string[] = [];
  const metric = (name: string, type: string, help: string, samples: Array<[string, number]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of samples) lines.push(`${name}${labels} ${Number.isFinite(v) ? v : 0}`);
  };
  const all = jobs.list();
  metric(
    "rlenv_jobs",
    "gauge",
    "Jobs by state.",
    JobState.options.map((s) => [`{state="${s}"}`, all.filter((j) => j.state === s).length]),
  );
  metric("rlenv_queue_depth", "gauge", "Jobs waiting for a slot.", [["", jobs.queued()]]);
  const now = Date.now();
  const window = jobs.rolloutEnds.filter((t) => now - t <= 60_000).length;
  metric("rlenv_rollouts_total", "counter", "Rollouts ended since the runner started.", [["", jobs.rolloutEnds.length]]);
  metric("rlenv_rollouts_per_second", "gauge", "Rollouts ended per second over the last minute.", [["", window / 60]]);
  // The engine reports the policy's utilisation in each run's summary; the newest finished job's.
  const done = all.find((j) => j.state === "completed");
  let policy = 0;
  if (done) {
    const f = path.join(mergedRunDir(jobs.jobDir(done.id)), "summary.json");
    if (existsSync(f)) {
      try {
        policy = (JSON.parse(readFileSync(f, "utf8")) as { utilisation?: { policy?: number } }).utilisation?.policy ?? 0;
      } catch {
        // being written
      }
    }
  }
  metric("rlenv_policy_utilisation", "gauge", "Fraction of wall time the policy had requests in flight (latest completed job).", [
    ["", policy],
  ]);
  metric("rlenv_gpu_utilisation", "gauge", "Mean GPU utilisation (0-1) at the last sample.", [["", jobs.lastGpuUtilisation ?? 0]]);
  return `${lines.join("\n")}\n`;
}

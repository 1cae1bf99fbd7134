import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { rolloutErrorClass } from "../../src/core/remote/jobs/error-class";
import { JobManager } from "../../src/core/remote/jobs/jobs";
import { RunnerMetrics } from "../../src/core/remote/server/metrics";
import { formatObservationLine, parseObservationLine } from "../../src/core/remote/progress-line";

/**
 * The runner's /metrics from prom-client: what the job manager's events and the units'
 * observations add up to, and the GPUs from a recorded nvidia-smi answer read through the
 * same parser a real one goes through.
 */
const FIXTURES = path.resolve(__dirname, "../fixtures/nvidia-smi");
const data = mkdtempSync(path.join(tmpdir(), "rlenv-metrics-"));
after(() => rmSync(data, { recursive: true, force: true }));

function sample(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

test("per-GPU utilisation and memory come from nvidia-smi's answer; none is exported where nvidia-smi is absent", async () => {
  process.env.RLENV_NVIDIA_SMI = path.join(FIXTURES, "replay.sh");
  try {
    const { text } = await new RunnerMetrics(new JobManager({ dataDir: data, version: "t", rlenvCommand: [], executors: {} })).render();
    assert.equal(sample(text, "rlenv_gpu_utilisation_ratio", '{gpu="0",name="NVIDIA H100 80GB HBM3"}'), 0.97);
    assert.equal(sample(text, "rlenv_gpu_utilisation_ratio", '{gpu="2",name="NVIDIA H100 80GB HBM3"}'), 0);
    assert.equal(sample(text, "rlenv_gpu_memory_used_bytes", '{gpu="1",name="NVIDIA H100 80GB HBM3"}'), 70411 * 1024 * 1024);
    assert.equal(sample(text, "rlenv_gpu_memory_total_bytes", '{gpu="3",name="NVIDIA H100 80GB HBM3"}'), 81559 * 1024 * 1024);
    assert.equal(sample(text, "rlenv_gpu_utilisation"), (0.97 + 0.94 + 0 + 0.88) / 4);
  } finally {
    delete process.env.RLENV_NVIDIA_SMI;
  }
  process.env.RLENV_NVIDIA_SMI = path.join(data, "no-such-nvidia-smi");
  try {
    const { text } = await new RunnerMetrics(new JobManager({ dataDir: data, version: "t", rlenvCommand: [], executors: {} })).render();
    assert.doesNotMatch(text, /^rlenv_gpu_utilisation_ratio\{/m);
    assert.equal(sample(text, "rlenv_gpu_utilisation"), 0);
  } finally {
    delete process.env.RLENV_NVIDIA_SMI;
  }
});

test("rollouts in flight, ends, error classes and the two latency histograms add up from events and observations", async () => {
  const jobs = new JobManager({ dataDir: data, version: "t", rlenvCommand: [], executors: {} });
  const m = new RunnerMetrics(jobs);
  for (let i = 0; i < 3; i++) jobs.emit("observation", "j1", { kind: "rollout-start" });
  jobs.emit("observation", "j1", { kind: "sandbox-start", ms: 40 });
  jobs.emit("observation", "j1", { kind: "sandbox-start", ms: 3000 });
  for (const ms of [80, 120, 700]) jobs.emit("observation", "j1", { kind: "policy-request", ms });
  jobs.emit("event", "j1", {
    type: "rollout-end",
    id: 1,
    t: 0,
    task: "a",
    sample: 0,
    status: "completed",
    reward: 1,
    file: "f",
    unit: "u",
  });
  jobs.emit("observation", "j1", { kind: "rollout-error", class: "infra_sandbox" });
  let { text } = await m.render();
  assert.equal(sample(text, "rlenv_rollouts_in_flight"), 2);
  assert.equal(sample(text, "rlenv_rollouts_total"), 1);
  assert.equal(sample(text, "rlenv_rollout_errors_total", '{class="infra_sandbox"}'), 1);
  // Every class is exported from the start, so rate() sees the first error of each.
  assert.equal(sample(text, "rlenv_rollout_errors_total", '{class="timeout"}'), 0);
  assert.equal(sample(text, "rlenv_sandbox_start_seconds_count"), 2);
  assert.equal(sample(text, "rlenv_sandbox_start_seconds_bucket", '{le="0.05"}'), 1);
  assert.equal(sample(text, "rlenv_sandbox_start_seconds_bucket", '{le="5"}'), 2);
  assert.equal(sample(text, "rlenv_policy_request_seconds_count"), 3);
  assert.equal(sample(text, "rlenv_policy_request_seconds_bucket", '{le="0.1"}'), 1);
  assert.ok(Math.abs((sample(text, "rlenv_policy_request_seconds_sum") ?? 0) - 0.9) < 1e-9);
  // A job that stops running has nothing in flight any more.
  jobs.emit("event", "j1", { type: "state", id: 2, t: 0, state: "interrupted" });
  ({ text } = await m.render());
  assert.equal(sample(text, "rlenv_rollouts_in_flight"), 0);
  // The metric names of the first /metrics are still there.
  for (const name of ["rlenv_jobs", "rlenv_queue_depth", "rlenv_rollouts_per_second", "rlenv_policy_utilisation", "rlenv_gpu_utilisation"])
    assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, "m"));
  assert.match(text, /^# TYPE rlenv_rollouts_total counter$/m);
});

test("error classes: the machinery's failures apart from the task's; completed, truncated and cancelled are no errors", () => {
  assert.equal(rolloutErrorClass({ status: "completed" }), undefined);
  assert.equal(rolloutErrorClass({ status: "truncated" }), undefined);
  assert.equal(rolloutErrorClass({ status: "cancelled" }), undefined);
  assert.equal(rolloutErrorClass({ status: "timeout" }), "timeout");
  assert.equal(rolloutErrorClass({ status: "error", reason: "verifier crashed" }), "task_error");
  assert.equal(rolloutErrorClass({ status: "error", infra: true, reason: "sandbox (docker) could not start: no image" }), "infra_sandbox");
  assert.equal(rolloutErrorClass({ status: "error", infra: true, reason: "policy server unreachable: ECONNREFUSED" }), "infra_policy");
  assert.equal(rolloutErrorClass({ status: "error", infra: true, reason: "disk full" }), "infra_other");
});

test("observation lines round-trip; malformed ones are dropped", () => {
  for (const o of [
    { kind: "rollout-start" },
    { kind: "sandbox-start", ms: 12.5 },
    { kind: "policy-request", ms: 0 },
    { kind: "rollout-error", class: "infra_policy" },
  ] as const)
    assert.deepEqual(parseObservationLine(formatObservationLine(o)), o);
  for (const bad of [
    "@rlenv-observe {",
    '@rlenv-observe {"kind":"sandbox-start","ms":-1}',
    '@rlenv-observe {"kind":"sandbox-start"}',
    '@rlenv-observe {"kind":"rollout-error","class":"x\\ny"}',
    '@rlenv-observe {"kind":"other"}',
    "plain log line",
  ])
    assert.equal(parseObservationLine(bad), undefined, bad);
});

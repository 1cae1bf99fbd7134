import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { RunnerClient } from "../../src/core/remote/client/client";
import { missing } from "../support/services";
import { makeFixtureEnv, REPO, startRunner, waitFor } from "./remote-helpers";

/**
 * The alerting rules under promtool (Debian's prometheus package, installed by
 * test/setup/prometheus.sh), and a real Prometheus on loopback scraping a real runner
 * that ran a job: the runner's metrics arrive through Prometheus's own query API.
 */
const RULES = path.join(REPO, "deploy/prometheus/rules.yml");
const RULE_TESTS = path.join(REPO, "deploy/prometheus/rules.test.yml");
const NVIDIA_SMI_REPLAY = path.join(REPO, "test/fixtures/nvidia-smi/replay.sh");
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const skip = missing("prometheus");
const promtool = process.env.RLENV_PROMTOOL || "promtool";
const prometheus = process.env.RLENV_PROMETHEUS || "prometheus";

test("promtool: the alerting rules are valid and pass their unit tests", { skip }, () => {
  const check = execFileSync(promtool, ["check", "rules", RULES], { encoding: "utf8" });
  assert.match(check, /SUCCESS: \d+ rules found/);
  // A failing case makes promtool exit non-zero, which execFileSync throws with its output.
  const tested = execFileSync(promtool, ["test", "rules", RULE_TESTS], { encoding: "utf8" });
  assert.match(tested, /SUCCESS/);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, q: string): Promise<PromVector[]> {
  const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { status: string; data?: { result: PromVector[] }; error?: string };
  assert.equal(body.status, "success", `${q}: ${body.error}`);
  return body.data?.result ?? [];
}

test("a real Prometheus scrapes a runner's /metrics with its token and sees the job's rollouts, sandbox starts and GPUs", {
  skip,
}, async () => {
  // The GPUs come from a recorded nvidia-smi answer, read by the runner through its parser.
  const data = mkdtempSync(path.join(tmpdir(), "rlenv-prom-runner-"));
  const prev = process.env.RLENV_NVIDIA_SMI;
  process.env.RLENV_NVIDIA_SMI = NVIDIA_SMI_REPLAY;
  const runner = await startRunner(data).finally(() => {
    if (prev === undefined) delete process.env.RLENV_NVIDIA_SMI;
    else process.env.RLENV_NVIDIA_SMI = prev;
  });
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
    rmSync(data, { recursive: true, force: true });
  });

  const promDir = mkdtempSync(path.join(tmpdir(), "rlenv-prom-"));
  const port = await freePort();
  const target = new URL(runner.url).host;
  writeFileSync(
    path.join(promDir, "prometheus.yml"),
    `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - ${JSON.stringify(RULES)}
scrape_configs:
  - job_name: rlenv-runner
    authorization:
      credentials_file: ${JSON.stringify(path.join(data, "token"))}
    static_configs:
      - targets: [${JSON.stringify(target)}]
`,
  );
  const prom: ChildProcess = spawn(
    prometheus,
    [
      `--config.file=${path.join(promDir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(promDir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let promLog = "";
  prom.stderr?.on("data", (c: Buffer) => {
    promLog += c.toString();
  });
  const promExited = new Promise<void>((r) => prom.on("exit", () => r()));
  cleanups.push(async () => {
    if (prom.exitCode === null) {
      prom.kill("SIGTERM");
      await promExited;
    }
    rmSync(promDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`Prometheus ready (log: ${promLog})`, async () =>
    (await fetch(`${base}/-/ready`).catch(() => null))?.ok ? true : undefined,
  );

  // Scraped with the bearer token: up is 1. Prometheus applies new targets on a 5 s tick, so its first
  // scrape can come seconds after it says ready; the job, whose rollouts are in flight for about 3 s,
  // starts only once the runner is being scraped.
  const up = await waitFor("up == 1", async () => {
    const r = await query(base, 'up{job="rlenv-runner"}');
    return r[0]?.value[1] === "1" ? r : undefined;
  });
  assert.equal(up.length, 1);

  const client = new RunnerClient({ url: runner.url, token: runner.token });
  const { job } = await client.submit(makeFixtureEnv(3, 1), {
    config: { policy: { kind: "oracle" }, k: 2, concurrency: 2, sandbox: "process" },
  });
  await client.followEvents(job.id, () => {});
  assert.equal((await client.job(job.id)).state, "completed");

  // The job's six rollouts arrive.

  // A query answers from the latest scrape, which may predate the job's end by a second: waited for.
  const until = (q: string, value: string) =>
    waitFor(`${q} == ${value}`, async () => ((await query(base, q))[0]?.value[1] === value ? true : undefined), 30_000);
  await until("rlenv_rollouts_total", "6");
  await until('rlenv_jobs{state="completed"}', "1");
  await until("rlenv_rollouts_in_flight", "0");
  await until("rlenv_rollouts_backlog", "0");
  await until('sum(rlenv_rollout_errors_total{class=~".+"})', "0");
  // Each rollout naps a second in its sandbox: scrapes a second apart saw some in flight.
  const peak = await query(base, "max_over_time(rlenv_rollouts_in_flight[5m])");
  assert.ok(Number(peak[0]?.value[1]) >= 1, `in flight: ${JSON.stringify(peak)}`);
  const starts = await query(base, "rlenv_sandbox_start_seconds_count");
  assert.ok(Number(starts[0]?.value[1]) >= 6, `sandbox starts: ${JSON.stringify(starts)}`);
  const gpus = await query(base, "rlenv_gpu_utilisation_ratio");
  assert.deepEqual(gpus.map((g) => [g.metric.gpu, g.value[1]]).sort(), [
    ["0", "0.97"],
    ["1", "0.94"],
    ["2", "0"],
    ["3", "0.88"],
  ]);
  const memory = await query(base, 'rlenv_gpu_memory_total_bytes{gpu="0"}');
  assert.equal(memory[0]?.value[1], String(81559 * 1024 * 1024));

  // The shipped rules loaded into this Prometheus and evaluate without error against the runner's series.
  const rules = await waitFor("rules evaluated", async () => {
    const body = (await (await fetch(`${base}/api/v1/rules`)).json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    const all = body.data.groups.flatMap((g) => g.rules);
    return all.length > 0 && all.every((r) => r.health === "ok") ? all : undefined;
  });
  assert.ok(rules.some((r) => r.name === "RlenvGpuIdleWhileRolloutsQueued"));
});

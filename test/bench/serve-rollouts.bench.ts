/**
 * `/v1/rollouts` benchmark: `npx tsx test/bench/serve-rollouts.bench.ts [rollouts] [policy-ms]`.
 *
 * `rlenv serve` (startServeServer, process backend) on the rollout fixture streams a batch of
 * `rollouts` (default 256: groups of 8) at concurrency 32 against the scripted OpenAI-compatible
 * server on loopback, which answers each request after `policy-ms` (default 50 ms, a GPU's turn)
 * with token ids and logprobs; each rollout is two turns (write a file, submit) and its tests run
 * in a fresh judging sandbox. Figures: rollouts per second (lines received over the request's wall
 * time), and policy utilisation, the fraction of wall time the policy server had at least one
 * request in flight (measured at the server: each request from its arrival to its reply; goal ≥ 0.9),
 * beside the engine's own count (the batch's summary line). Baseline in the same run: `rlenv run`'s
 * engine (runEnvironment) on the same tasks, policy server and concurrency. Printed with the machine
 * it ran on. Prints figures; asserts nothing about time.
 */
import os from "node:os";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { rolloutsMount } from "../../src/core/serve/rollouts/rollouts-mount";
import { startServeServer } from "../../src/core/serve/serve-server";
import { rolloutsPolicyStep } from "../support/rollouts-policy-script";
import { startScriptedServer } from "../support/scripted-openai-server";

const ROLLOUTS = Number(process.argv[2] ?? 256);
const POLICY_MS = Number(process.argv[3] ?? 50);
const CONCURRENCY = 32;
const GROUP = 8;
const FIXTURE = path.join(__dirname, "../fixtures/rollout-env");

/** Requests in flight at the policy server, as [arrival, reply] intervals. */
const intervals: Array<[number, number]> = [];

function utilisation(from: number, to: number): number {
  const inside = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let busy = 0;
  let end = from;
  for (const [a, b] of inside) {
    if (b <= end) continue;
    busy += b - Math.max(a, end);
    end = b;
  }
  return to > from ? busy / (to - from) : 0;
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const mem = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${os.availableParallelism()} cores (nproc), ${cpu}, ${mem} GiB memory, load ${os.loadavg()[0]?.toFixed(2)}, Node ${process.version}`;
}

async function main(): Promise<void> {
  const policy = await startScriptedServer((req) => {
    const now = performance.now();
    intervals.push([now, now + POLICY_MS]);
    return rolloutsPolicyStep(req, { delayMs: POLICY_MS });
  });
  const runs = mkdtempSync(path.join(os.tmpdir(), "rlenv-bench-serve-"));
  try {
    console.log(`machine: ${machine()}`);
    console.log(
      `${ROLLOUTS} rollouts, groups of ${GROUP}, concurrency ${CONCURRENCY}, policy ${POLICY_MS} ms a request, process backend\n`,
    );
    const served = await serveBatch(policy.baseURL, runs);
    const baseline = await runBaseline(policy.baseURL, runs);
    const row = (name: string, r: { n: number; s: number; util: number; engineUtil: number }) =>
      console.log(
        `${name.padEnd(22)} ${String(r.n).padStart(5)} rollouts  ${r.s.toFixed(2).padStart(7)} s  ${(r.n / r.s).toFixed(2).padStart(7)} rollouts/s  policy utilisation ${r.util.toFixed(3)} (engine's count ${r.engineUtil.toFixed(3)})`,
      );
    row("POST /v1/rollouts", served);
    row("rlenv run (baseline)", baseline);
    console.log(`\nratio serve/run rollouts per second: ${(served.n / served.s / (baseline.n / baseline.s)).toFixed(3)}`);
    console.log(`first line after ${served.firstLineS.toFixed(2)} s (lines stream as groups complete)`);
  } finally {
    await policy.close();
    rmSync(runs, { recursive: true, force: true });
  }
}

async function serveBatch(baseURL: string, runs: string) {
  const server = await startServeServer({
    dirs: [FIXTURE],
    port: 0,
    maxSessions: 8,
    idleTimeoutMs: 0,
    backend: "process",
    runsDir: path.join(runs, "serve"),
    protocols: [rolloutsMount],
  });
  try {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v1/rollouts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        count: Math.ceil(ROLLOUTS / GROUP),
        group_size: GROUP,
        concurrency: CONCURRENCY,
        model: { base_url: baseURL, model: "scripted" },
        sampling: { temperature: 1, seed: 1 },
        policy_version: "bench",
      }),
    });
    let n = 0;
    let firstLine = 0;
    type Summary = { policy_utilisation: number; statuses: Record<string, number> };
    let summary = null as Summary | null;
    let buf = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = JSON.parse(buf.slice(0, nl)) as { type: string };
        buf = buf.slice(nl + 1);
        if (line.type === "rollout" && n++ === 0) firstLine = performance.now() - t0;
        if (line.type === "summary") summary = line as unknown as Summary;
      }
    }
    const t1 = performance.now();
    if (summary && Object.keys(summary.statuses).some((s) => s !== "completed"))
      console.log(`serve statuses: ${JSON.stringify(summary.statuses)}`);
    return {
      n,
      s: (t1 - t0) / 1000,
      util: utilisation(t0, t1),
      engineUtil: summary?.policy_utilisation ?? 0,
      firstLineS: firstLine / 1000,
    };
  } finally {
    await server.close();
  }
}

async function runBaseline(baseURL: string, runs: string) {
  const { env } = loadEnvironment(FIXTURE);
  if (!env) throw new Error("the fixture does not load");
  // Sandboxes under the system's temporary folder, as the server's own provider places them (bwrap binds from there).
  const sbx = mkdtempSync(path.join(os.tmpdir(), "rlenv-bench-sbx-"));
  const provider = new ProcessSandboxProvider({ baseDir: sbx });
  try {
    const t0 = performance.now();
    const r = await runEnvironment({
      env,
      config: {
        policy: { kind: "openai", base_url: baseURL, model: "scripted", temperature: 1, seed: 1 },
        k: Math.ceil(ROLLOUTS / env.tasks.length),
        concurrency: CONCURRENCY,
        sandbox: "process",
      },
      runsDir: path.join(runs, "run"),
      sandboxProvider: provider,
    });
    const t1 = performance.now();
    const statuses = JSON.parse(readFileSync(path.join(r.runDir, "summary.json"), "utf8")).statuses as Record<string, number>;
    if (Object.keys(statuses).some((s) => s !== "completed")) console.log(`run statuses: ${JSON.stringify(statuses)}`);
    return { n: r.rollouts.length, s: (t1 - t0) / 1000, util: utilisation(t0, t1), engineUtil: r.summary.utilisation?.policy ?? 0 };
  } finally {
    await provider.shutdown();
    rmSync(sbx, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

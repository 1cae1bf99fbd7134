/**
 * Rollout engine benchmark: `npx tsx test/bench/rollout-overhead.ts [rollouts]`.
 *
 * 1. Engine overhead: 200 rollouts of a trivial task (two sandbox steps, then submit)
 *    with an in-process scripted policy, at concurrency 1, 8 and 32, on the real
 *    process sandbox. Overhead per step = (rollout wall time − policy − sandbox −
 *    verifier time) / turns; goal: median < 2 ms. Baseline, same run: the same sandbox
 *    calls made directly with no engine, so the ratio shows what the engine adds.
 * 2. Policy utilisation: a policy that takes 50 ms per turn (the scripted
 *    OpenAI-compatible server on loopback, through the real client) and a tool that
 *    sleeps 50 ms in the sandbox, at concurrency 32; goal: > 0.9. Baseline, same run:
 *    concurrency 1, where the policy idles while the sandbox works.
 * 3. Engine CPU and event-loop delay: the engine's own CPU per step (process CPU over the
 *    run, less the direct sandbox work's CPU measured in the same run; and on a synthetic
 *    sandbox that does no work, where every CPU second is the engine's) and the event loop's
 *    delay (p50, p99) while the run goes, at concurrency 1, 8 and 32; goal: < 2 ms at c=32.
 *    With BENCH_BASELINE_SRC=<another checkout's src> the same levels also run through that
 *    checkout's engine, interleaved, so a change is measured before and after in one run.
 * Prints figures; asserts nothing about time.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Environment } from "../../src/core/model/environment";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { PlannedPolicy } from "../../src/core/policy/scripted";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { runRollout } from "../../src/core/rollout/run-rollout";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { ExecResult, Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { startScriptedServer } from "../support/scripted-openai-server";

const ROLLOUTS = Number(process.argv[2] ?? 200);
/** Only section 3 (engine CPU and event-loop delay): `... rollout-overhead.ts 128 cpu`. */
const ONLY_CPU = process.argv[3] === "cpu";

function makeEnv(stepCommand: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-env-"));
  writeFileSync(
    path.join(dir, "environment.yaml"),
    `name: bench
domain: custom
tasks: tasks.jsonl
sandbox: { timeouts: { step: 30, rollout: 600 } }
tools:
  - submit
  - name: step
    description: One unit of sandbox work.
    command: ${JSON.stringify(stepCommand)}
max_turns: 5
reward:
  - type: exact
`,
  );
  writeFileSync(
    path.join(dir, "tasks.jsonl"),
    `${JSON.stringify({ id: "trivial", prompt: "Call step twice, then submit ok.", files: { "a.txt": "seed\n" }, target: "ok" })}\n`,
  );
  return dir;
}

/** Bench-only: a sandbox whose every exec takes `ms` and does nothing else. */
class TimedSandbox implements Sandbox {
  readonly id = "timed";
  readonly backend = "process" as const;
  readonly workdir = "/workspace";
  constructor(private readonly ms: number) {}
  async exec(): Promise<ExecResult> {
    await new Promise((r) => setTimeout(r, this.ms));
    return { status: "ok", exitCode: 0, stdout: "done\n", stderr: "", durationMs: this.ms };
  }
  async writeFiles(): Promise<void> {}
  async readFiles(paths: string[]): Promise<Record<string, Buffer | null>> {
    return Object.fromEntries(paths.map((p) => [p, null]));
  }
  async diff() {
    return [];
  }
  async reset(): Promise<void> {}
  async close(): Promise<void> {}
}

class TimedSandboxProvider implements SandboxProvider {
  readonly backend = "process" as const;
  constructor(private readonly ms: number) {}
  async acquire(): Promise<Sandbox> {
    return new TimedSandbox(this.ms);
  }
  async shutdown(): Promise<void> {}
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const f = (n: number, d = 2) => n.toFixed(d);

const plan = () =>
  new PlannedPolicy("scripted", [
    { content: null, calls: [{ name: "step", arguments: "{}" }] },
    { content: null, calls: [{ name: "step", arguments: "{}" }] },
    { content: null, calls: [{ name: "submit", arguments: '{"answer":"ok"}' }] },
  ]);

async function main(): Promise<void> {
  const provider = new ProcessSandboxProvider();
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-runs-"));
  const envDir = makeEnv("cat a.txt > /dev/null");
  const { env } = loadEnvironment(envDir);
  if (!env) throw new Error("bench environment does not load");
  console.log(`rollout-overhead: ${ROLLOUTS} rollouts per level, process sandbox (${provider.mode}), node ${process.version}`);

  // Baseline, interleaved with the engine so both see the same machine load: one rollout's
  // sandbox work done directly (acquire, reset, 2 execs, close) vs the same rollout through runRollout.
  const pairs = Math.min(ROLLOUTS, 50);
  const direct: number[] = [];
  const engine: number[] = [];
  let directCpuUs = 0;
  const pairDir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-pairs-"));
  for (let i = -3; i < pairs; i++) {
    const b0 = performance.now();
    const c0 = process.cpuUsage();
    const sb = await provider.acquire(sandboxRequest(env));
    await sb.reset({ "a.txt": "seed\n" });
    await sb.exec("cat a.txt > /dev/null", { stdin: "{}" });
    await sb.exec("cat a.txt > /dev/null", { stdin: "{}" });
    await sb.close();
    const dc = process.cpuUsage(c0);
    const b1 = performance.now();
    const r = await runRollout({
      env,
      task: env.tasks[0]!,
      policy: plan(),
      sandboxProvider: provider,
      file: path.join(pairDir, `${i + 3}.jsonl`),
      runId: "pairs",
      rolloutId: `p${i + 3}`,
      domain: null,
    });
    const b2 = performance.now();
    if (r.reward !== 1) throw new Error(`paired rollout did not score 1: ${r.reason}`);
    if (i < 0) continue; // warm-up
    directCpuUs += dc.user + dc.system;
    direct.push(b1 - b0);
    engine.push(b2 - b1);
  }
  rmSync(pairDir, { recursive: true, force: true });
  console.log(
    `baseline, ${pairs} interleaved pairs at concurrency 1: direct sandbox work ${f(median(direct))} ms median, same rollout through the engine ${f(median(engine))} ms median, ratio ${f(median(engine) / median(direct))}× (the engine adds trajectory writes, prompts, the exact verifier)`,
  );

  await engineCpu(env, provider, directCpuUs / pairs / 1000);
  if (ONLY_CPU) {
    await provider.shutdown();
    for (const d of [runsDir, envDir]) rmSync(d, { recursive: true, force: true });
    return;
  }

  console.log("\nconcurrency  wall s  rollouts/s  overhead/step ms (median  p90)  mean rollout ms");
  for (const c of [1, 8, 32]) {
    const r = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, k: ROLLOUTS, concurrency: c },
      runsDir,
      sandboxProvider: provider,
      policyFactory: plan,
    });
    const bad = r.rollouts.filter((x) => x.reward !== 1);
    if (bad.length > 0) throw new Error(`${bad.length} rollouts did not score 1: ${bad[0]?.reason}`);
    const per = r.rollouts.map((x) => (x.timings.total_ms - x.timings.policy_ms - x.timings.sandbox_ms - x.timings.verify_ms) / x.turns);
    const wall = (r.summary.utilisation?.wall_ms ?? 0) / 1000;
    const meanTotal = r.rollouts.reduce((s, x) => s + x.timings.total_ms, 0) / r.rollouts.length;
    console.log(
      `${String(c).padStart(11)}  ${f(wall, 1).padStart(6)}  ${f(ROLLOUTS / wall, 1).padStart(10)}  ${f(median(per), 3).padStart(22)}  ${f(pct(per, 0.9), 3).padStart(5)}  ${f(meanTotal, 1).padStart(14)}`,
    );
    if (c === 1 || c === 32) console.log(`${"".padStart(13)}goal median < 2 ms: ${median(per) < 2 ? "met" : "NOT met"}`);
  }

  // Utilisation: 50 ms policy turns through HTTP, 50 ms sandbox steps.
  const slowEnvDir = makeEnv("sleep 0.05");
  const slow = loadEnvironment(slowEnvDir).env!;
  const server = await startScriptedServer((req) => {
    const tools = req.messages.filter((m) => m.role === "tool").length;
    return tools < 2
      ? { reply: { content: null, tool_calls: [{ name: "step", arguments: {} }] }, delayMs: 50 }
      : { reply: { content: null, tool_calls: [{ name: "submit", arguments: { answer: "ok" } }] }, delayMs: 50 };
  });
  const policyFactory = () => new OpenAIPolicy({ baseURL: server.baseURL, model: "scripted", retries: 0 });
  console.log("\nutilisation (50 ms policy turn, 50 ms sandbox step)");
  const results: Record<number, number> = {};
  for (const [c, n] of [
    [1, Math.min(ROLLOUTS, 20)],
    [32, ROLLOUTS],
  ] as const) {
    const r = await runEnvironment({
      env: slow,
      config: { policy: { kind: "openai" }, k: n, concurrency: c },
      runsDir,
      sandboxProvider: provider,
      policyFactory,
    });
    const u = r.summary.utilisation!;
    const steps = r.rollouts.flatMap((x) => x.turns);
    const meanStep = r.rollouts.reduce((s, x) => s + x.timings.sandbox_ms, 0) / steps.reduce((a, b) => a + b, 0);
    results[c] = u.policy;
    console.log(
      `  concurrency ${String(c).padStart(2)}: ${n} rollouts, wall ${f(u.wall_ms / 1000, 1)} s, policy utilisation ${f(u.policy, 3)}, sandbox busy ${f(u.sandbox_busy_ms / 1000, 1)} s, sandbox ms per turn ${f(meanStep, 1)}, max policy queue ${u.max_queue_depth}`,
    );
  }
  console.log(
    `  ratio c32/c1: ${f(results[32]! / results[1]!)}×; goal utilisation > 0.9 at c32: ${results[32]! > 0.9 ? "met" : "NOT met"}`,
  );

  // The condition exactly: every sandbox step takes 50 ms. On a loaded machine a real
  // bwrap exec takes far longer, so this run times each step with a 50 ms timer instead (a
  // synthetic sandbox, labelled as such) to isolate what the scheduler itself achieves.
  const timed = new TimedSandboxProvider(50);
  console.log("\nutilisation with a synthetic sandbox whose every exec takes exactly 50 ms (the issue's condition)");
  for (const [c, n] of [
    [1, Math.min(ROLLOUTS, 20)],
    [32, ROLLOUTS],
  ] as const) {
    const r = await runEnvironment({
      env: slow,
      config: { policy: { kind: "openai" }, k: n, concurrency: c },
      runsDir,
      sandboxProvider: timed,
      policyFactory,
    });
    const u = r.summary.utilisation!;
    results[c] = u.policy;
    console.log(
      `  concurrency ${String(c).padStart(2)}: ${n} rollouts, wall ${f(u.wall_ms / 1000, 1)} s, policy utilisation ${f(u.policy, 3)}, max policy queue ${u.max_queue_depth}`,
    );
  }
  console.log(
    `  ratio c32/c1: ${f(results[32]! / results[1]!)}×; goal utilisation > 0.9 at c32: ${results[32]! > 0.9 ? "met" : "NOT met"}`,
  );
  await server.close();
  await provider.shutdown();
  for (const d of [runsDir, envDir, slowEnvDir]) rmSync(d, { recursive: true, force: true });
}

type Engine = { runEnvironment: typeof runEnvironment };

/** Section 3: the engine's CPU per step and the event loop's delay, on the real and on a do-nothing sandbox. */
async function engineCpu(env: Environment, provider: SandboxProvider, directCpuMsPerRollout: number): Promise<void> {
  const engines: Array<[string, Engine]> = [["this checkout", { runEnvironment }]];
  const baselineSrc = process.env.BENCH_BASELINE_SRC;
  if (baselineSrc) engines.unshift(["baseline", (await import(path.resolve(baselineSrc, "core/rollout/run-environment.ts"))) as Engine]);
  const free = new TimedSandboxProvider(0);
  const n = Math.max(32, Math.min(ROLLOUTS, 128));
  console.log(
    `\nengine CPU per step and event-loop delay, ${n} rollouts per level (direct sandbox CPU ${f(directCpuMsPerRollout)} ms a rollout)`,
  );
  console.log("engine         sandbox     c   CPU/step ms  loop delay p50  p99 ms  overhead/step ms (wall, median)");
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-cpu-"));
  // Warm-up, not measured: each engine's modules load (a domain, a verifier) on first use.
  for (const [, engine] of engines)
    for (const sp of [provider, free])
      await engine.runEnvironment({ env, config: { policy: { kind: "oracle" }, k: 4 }, runsDir, sandboxProvider: sp, policyFactory: plan });
  for (const c of [1, 8, 32]) {
    for (const [sandboxName, sp, lessCpuMs] of [
      ["process", provider, directCpuMsPerRollout],
      ["no-op", free, 0],
    ] as const) {
      for (const [engineName, engine] of engines) {
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const cpu0 = process.cpuUsage();
        const r = await engine.runEnvironment({
          env,
          config: { policy: { kind: "oracle" }, k: n, concurrency: c },
          runsDir,
          sandboxProvider: sp,
          policyFactory: plan,
        });
        const cpu = process.cpuUsage(cpu0);
        loop.disable();
        const bad = r.rollouts.filter((x) => x.reward !== 1);
        if (bad.length > 0) throw new Error(`${bad.length} rollouts did not score 1: ${bad[0]?.reason}`);
        const steps = r.rollouts.reduce((s, x) => s + x.turns, 0);
        const cpuPerStep = ((cpu.user + cpu.system) / 1000 - lessCpuMs * r.rollouts.length) / steps;
        const per = r.rollouts.map(
          (x) => (x.timings.total_ms - x.timings.policy_ms - x.timings.sandbox_ms - x.timings.verify_ms) / x.turns,
        );
        console.log(
          `${engineName.padEnd(14)} ${sandboxName.padEnd(8)} ${String(c).padStart(4)}  ${f(cpuPerStep, 3).padStart(11)}  ${f(loop.percentile(50) / 1e6).padStart(14)}  ${f(loop.percentile(99) / 1e6).padStart(6)}  ${f(median(per), 3).padStart(10)}`,
        );
      }
    }
  }
  rmSync(runsDir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

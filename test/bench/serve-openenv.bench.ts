/**
 * OpenEnv serving benchmark: `npx tsx test/bench/serve-openenv.bench.ts [steps] [sessions]`.
 *
 * The server is the real `rlenv serve` (the CLI, in a child process, process backend), the
 * client our OpenEnv WS client; the baseline runs in this process, in the same run.
 * (a) Step round trip over WS /ws (a `call_tool` step: WS frame, session, the engine's turn,
 *     the tool's sandbox exec, the observation back) vs a direct sandbox exec of the same
 *     tool command with the same JSON on stdin, at 1 and 64 concurrent sessions. Target: the
 *     median's ratio ≤ 1.15×.
 * (b) 256 concurrent open sessions: memory per idle session (the server's process tree:
 *     server and sandboxes, RSS and PSS, after − before / sessions) and reset p50/p99 from a
 *     warm pool (the sessions' sandboxes were started once and came back to the pool).
 * Prints figures; asserts nothing about time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { sandboxRequest } from "../../src/core/sandbox/request";
import { OpenEnvWsClient } from "../support/openenv-client";

const STEPS = Number(process.argv[2] ?? 40);
const IDLE_SESSIONS = Number(process.argv[3] ?? 256);
/** Only part (b): `... serve-openenv.bench.ts 40 256 idle`. */
const ONLY_IDLE = process.argv[4] === "idle";
const REPO = path.resolve(import.meta.dirname, "..", "..");
/** A cheap tool (one short process), so the figure shows what serving adds rather than the tool's own cost. */
const TOOL_COMMAND = "cat a.txt";

function makeEnv(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-serve-"));
  writeFileSync(
    path.join(dir, "environment.yaml"),
    `name: bench-serve
domain: custom
tasks: tasks.jsonl
sandbox: { timeouts: { step: 60, rollout: 3600 } }
tools:
  - submit
  - name: show
    description: Print a file of the workdir.
    parameters: { type: object, properties: { path: { type: string } } }
    command: ${JSON.stringify(TOOL_COMMAND)}
max_turns: 100000
reward:
  - type: exact
`,
  );
  writeFileSync(
    path.join(dir, "tasks.jsonl"),
    `${JSON.stringify({ id: "t", prompt: "Show a.txt.", files: { "a.txt": "seed\n" }, target: "ok" })}\n`,
  );
  return dir;
}

async function startServer(envDir: string, runs: string, maxSessions: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(REPO, "src/cli/main.ts"),
      "serve",
      envDir,
      "--port",
      "0",
      "--json",
      "--sandbox",
      "process",
      "--max-sessions",
      String(maxSessions),
      "--idle-timeout",
      "0",
      "--runs",
      runs,
    ],
    { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`rlenv serve exited with ${code}`)));
  });
  return { url, child };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** c sessions, each doing `steps` call_tool steps in turn; per-step round trips. */
async function overWs(url: string, c: number, steps: number): Promise<{ rtt: number[]; wallMs: number }> {
  const clients = await Promise.all(Array.from({ length: c }, () => new OpenEnvWsClient(url).connect()));
  await Promise.all(clients.map((cl) => cl.reset({ task_id: "t" })));
  for (const cl of clients) await cl.callTool("show", { path: "a.txt" }); // warm the path
  const rtt: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (cl) => {
      for (let i = 0; i < steps; i++) {
        const s = performance.now();
        await cl.callTool("show", { path: "a.txt" });
        rtt.push(performance.now() - s);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  await Promise.all(clients.map((cl) => cl.close()));
  return { rtt, wallMs };
}

/** The same tool call straight on c sandboxes: the tool's command, its JSON on stdin. */
async function direct(
  provider: ProcessSandboxProvider,
  envDir: string,
  c: number,
  steps: number,
): Promise<{ rtt: number[]; wallMs: number }> {
  const { env } = loadEnvironment(envDir);
  if (!env) throw new Error("bench env does not load");
  const boxes = await Promise.all(Array.from({ length: c }, () => provider.acquire(sandboxRequest(env))));
  await Promise.all(boxes.map((sb) => sb.reset({ "a.txt": "seed\n" })));
  const stdin = JSON.stringify({ path: "a.txt" });
  for (const sb of boxes) await sb.exec(TOOL_COMMAND, { stdin, timeoutMs: 60_000 });
  const rtt: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    boxes.map(async (sb) => {
      for (let i = 0; i < steps; i++) {
        const s = performance.now();
        const r = await sb.exec(TOOL_COMMAND, { stdin, timeoutMs: 60_000 });
        if (r.exitCode !== 0) throw new Error(`direct exec failed: ${r.stderr}`);
        rtt.push(performance.now() - s);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  await Promise.all(boxes.map((sb) => sb.close()));
  return { rtt, wallMs };
}

/** The process tree of `root`: pids and their memory (RSS and PSS, kB). */
function treeMemory(root: number): { pids: number; rssKb: number; pssKb: number } {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, pp] of parent) if (pp === tree[i]) tree.push(pid);
  let rssKb = 0;
  let pssKb = 0;
  for (const pid of tree) {
    try {
      const roll = readFileSync(`/proc/${pid}/smaps_rollup`, "latin1");
      rssKb += Number(/^Rss:\s+(\d+)/m.exec(roll)?.[1] ?? 0);
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(roll)?.[1] ?? 0);
    } catch {}
  }
  return { pids: tree.length, rssKb, pssKb };
}

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 2000));
}

/** Each client's call of `fn`, timed on its own, all at once (as a trainer's batch starts). */
async function timedAll(
  clients: OpenEnvWsClient[],
  fn: (c: OpenEnvWsClient) => Promise<unknown>,
): Promise<{ each: number[]; allMs: number }> {
  const each: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      const s = performance.now();
      await fn(c);
      each.push(performance.now() - s);
    }),
  );
  return { each, allMs: performance.now() - t0 };
}

function perSession(label: string, before: ReturnType<typeof treeMemory>, after: ReturnType<typeof treeMemory>, n: number): void {
  const pss = (after.pssKb - before.pssKb) / n / 1024;
  const rss = (after.rssKb - before.rssKb) / n / 1024;
  console.log(
    `    ${label}: ${pss.toFixed(2)} MiB PSS, ${rss.toFixed(2)} MiB RSS per session (process tree ${before.pids} → ${after.pids} processes, ${(after.pssKb / 1024).toFixed(0)} MiB PSS in all)`,
  );
}

/**
 * An episode takes its sandbox at its first tool call (the engine acquires it lazily), so an
 * idle session is measured twice: reset only, and after one tool call (holding its sandbox).
 * The cold pass starts the sandboxes; closing its sessions hands them back to the pool, which
 * the warm pass then draws from.
 */
async function idleSessions(url: string, serverPid: number, n: number): Promise<void> {
  // Starting hundreds of sandboxes at once on two cores can take minutes: the replies may take that long.
  const open = async () => Promise.all(Array.from({ length: n }, () => new OpenEnvWsClient(url, {}, "", 900_000).connect()));
  const show = (c: OpenEnvWsClient) => c.callTool("show", { path: "a.txt" });
  await settle();
  const before = treeMemory(serverPid);
  let clients = await open();
  await Promise.all(clients.map((c) => c.reset({ task_id: "t" })));
  const cold = await timedAll(clients, show);
  await Promise.all(clients.map((c) => c.close()));
  await settle();
  const pooled = treeMemory(serverPid);
  clients = await open();
  const resets = await timedAll(clients, (c) => c.reset({ task_id: "t" }));
  await settle();
  const resetOnly = treeMemory(serverPid);
  const firstSteps = await timedAll(clients, show);
  await settle();
  const holding = treeMemory(serverPid);
  console.log(`(b) ${n} concurrent open sessions, idle`);
  perSession("reset, no tool call yet (no sandbox)", pooled, resetOnly, n);
  perSession("after one tool call (its sandbox held)", before, holding, n);
  console.log(`    reset: p50 ${ms(pct(resets.each, 50))}, p99 ${ms(pct(resets.each, 99))} (${n} at once, ${ms(resets.allMs)} for all)`);
  console.log(
    `    first tool call, sandbox from the warm pool: p50 ${ms(pct(firstSteps.each, 50))}, p99 ${ms(pct(firstSteps.each, 99))} (${ms(firstSteps.allMs)} for all; cold, starting ${n} sandboxes: p50 ${ms(pct(cold.each, 50))}, ${ms(cold.allMs)} for all)`,
  );
  await Promise.all(clients.map((c) => c.close()));
}

async function main(): Promise<void> {
  const envDir = makeEnv();
  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-bench-serve-runs-"));
  const { url, child } = await startServer(envDir, runs, Math.max(64, IDLE_SESSIONS) + 8);
  // Interrupted: the server closes its sessions and sandboxes before this process goes.
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      child.kill("SIGTERM");
      child.once("exit", () => process.exit(130));
    });
  }
  const provider = new ProcessSandboxProvider({ baseDir: mkdtempSync(path.join(tmpdir(), "rlenv-bench-sb-")) });
  console.log(
    `serve-openenv: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, process sandbox (${provider.mode}); ${STEPS} steps per session`,
  );
  try {
    for (const c of ONLY_IDLE ? [] : [1, 64]) {
      const steps = c === 1 ? STEPS * 4 : Math.max(5, Math.round(STEPS / 4));
      // Interleaved, baseline first then the server, twice, so both see the same machine.
      const ws: number[] = [];
      const dx: number[] = [];
      let wsWall = 0;
      let dxWall = 0;
      for (let round = 0; round < 2; round++) {
        const d = await direct(provider, envDir, c, steps);
        const w = await overWs(url, c, steps);
        dx.push(...d.rtt);
        ws.push(...w.rtt);
        dxWall += d.wallMs;
        wsWall += w.wallMs;
      }
      console.log(
        `(a) c=${c}: step over WS /ws p50 ${ms(pct(ws, 50))} p99 ${ms(pct(ws, 99))} (${((ws.length / wsWall) * 1000).toFixed(0)} steps/s)`,
      );
      console.log(
        `          direct sandbox exec p50 ${ms(pct(dx, 50))} p99 ${ms(pct(dx, 99))} (${((dx.length / dxWall) * 1000).toFixed(0)} execs/s)`,
      );
      console.log(
        `          ratio (p50 WS / p50 direct): ${(pct(ws, 50) / pct(dx, 50)).toFixed(3)}×; p99 ${(pct(ws, 99) / pct(dx, 99)).toFixed(3)}×; throughput ${(dx.length / dxWall / (ws.length / wsWall)).toFixed(3)}×`,
      );
    }
    await provider.shutdown();
    await idleSessions(url, child.pid ?? 0, IDLE_SESSIONS);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(envDir, { recursive: true, force: true });
    rmSync(runs, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});

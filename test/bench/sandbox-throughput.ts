/**
 * Sandbox throughput: `python3 -c 'print(1)'` run (a) as a plain child process, (b) docker-run
 * style (create/start/wait/remove), (c) dockerode exec on a warm container, (d) our docker
 * sandbox exec (through the in-container agent), plus (e) our process sandbox under each
 * isolation mode that works here (bwrap, unshare), at concurrency 1, 8 and 32, each as ops/s
 * and as a ratio to (a) measured in the same run. Then warm-pool acquire p50 and the memory of
 * an idle warm container.
 * Run: npx tsx test/bench/sandbox-throughput.ts   (env BENCH_OPS scales the op counts;
 * BENCH_ROWS=a,d,e runs only those rows (a is always run: it is the baseline), and skips the
 * warm-pool figures unless d is among them).
 */
import { spawn } from "node:child_process";
import type { Duplex } from "node:stream";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { ISOLATION_MODES, isolationUnavailable } from "../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import type { Sandbox, SandboxRequest } from "../../src/core/model/sandbox";

const IMAGE = process.env.RLENV_BENCH_IMAGE ?? "rlenv/python:bookworm";
const SCALE = Number(process.env.BENCH_OPS ?? "1");
const CMD = ["python3", "-c", "print(1)"];
const ROWS = new Set((process.env.BENCH_ROWS ?? "a,b,c,d,e").split(",").map((r) => r.trim()));
const wants = (row: string) => row === "a" || ROWS.has(row);
const MODES = ISOLATION_MODES.filter((m) => isolationUnavailable(m) === null);
const docker = new Docker();
const req: SandboxRequest = {
  image: IMAGE,
  workdir: "/workspace",
  user: "1000:1000",
  limits: { cpus: 1, memoryBytes: 512 << 20, pids: 256, outputBytes: 1_000_000, tmpfsBytes: 64 << 20 },
};

type Op = (worker: number) => Promise<void>;

/** Runs `total` ops with `concurrency` workers; returns ops per second. */
async function throughput(concurrency: number, total: number, op: Op): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < total) {
        next++;
        await op(w);
      }
    }),
  );
  return (total / (performance.now() - t0)) * 1000;
}

function plainChild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn("/usr/bin/python3", CMD.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    c.stdout.resume();
    c.stderr.resume();
    c.on("error", reject);
    c.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function dockerRun(): Promise<void> {
  const c = await docker.createContainer({
    Image: IMAGE,
    Cmd: CMD,
    User: "1000:1000",
    HostConfig: { NetworkMode: "none", LogConfig: { Type: "none", Config: {} } },
  });
  await c.start();
  const r = (await c.wait()) as { StatusCode: number };
  await c.remove({ force: true });
  if (r.StatusCode !== 0) throw new Error(`exit ${r.StatusCode}`);
}

async function dockerExec(c: Docker.Container): Promise<void> {
  const e = await c.exec({ Cmd: CMD, AttachStdout: true, AttachStderr: true });
  const stream = (await e.start({ hijack: true, stdin: false })) as unknown as Duplex;
  await new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
    stream.resume();
  });
  const info = await e.inspect();
  if (info.ExitCode !== 0) throw new Error(`exit ${info.ExitCode}`);
}

async function sandboxExec(s: Sandbox): Promise<void> {
  const r = await s.exec(CMD);
  if (r.exitCode !== 0 || r.stdout !== "1\n") throw new Error(`sandbox exec: ${JSON.stringify(r)}`);
}

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const levels = [1, 8, 32];
  const ops = (c: number, heavy = false) => Math.round((heavy ? Math.max(8, c * 2) : Math.max(30, c * 6)) * SCALE);
  const processRow = (m: string) => `(e) rlenv process sandbox (${m})`;
  const rows: Record<string, number[]> = {};
  for (const name of [
    "(a) plain child process",
    "(b) docker create/start/wait/rm",
    "(c) dockerode exec, warm container",
    "(d) rlenv docker sandbox exec",
  ])
    if (wants(name[1] ?? "")) rows[name] = [];
  if (wants("e")) for (const m of MODES) rows[processRow(m)] = [];

  const idle: Docker.Container[] = [];
  for (let i = 0; wants("c") && i < 32; i++) {
    const c = await docker.createContainer({
      Image: IMAGE,
      Cmd: ["sleep", "infinity"],
      User: "1000:1000",
      HostConfig: { NetworkMode: "none", Init: true },
    });
    await c.start();
    idle.push(c);
  }
  const dp = wants("d") ? await DockerSandboxProvider.create({ docker, warm: 0 }) : null;
  const boxes = dp ? await Promise.all(Array.from({ length: 32 }, () => dp.acquire(req))) : [];
  const pps = wants("e") ? MODES.map((mode) => new ProcessSandboxProvider({ mode })) : [];
  const pboxes = await Promise.all(pps.map((pp) => Promise.all(Array.from({ length: 32 }, () => pp.acquire(req)))));
  try {
    for (const c of levels) {
      rows["(a) plain child process"]?.push(await throughput(c, ops(c), () => plainChild()));
      if (wants("b")) rows["(b) docker create/start/wait/rm"]?.push(await throughput(c, ops(c, true), () => dockerRun()));
      if (wants("c"))
        rows["(c) dockerode exec, warm container"]?.push(await throughput(c, ops(c), (w) => dockerExec(idle[w] as Docker.Container)));
      if (wants("d")) rows["(d) rlenv docker sandbox exec"]?.push(await throughput(c, ops(c), (w) => sandboxExec(boxes[w] as Sandbox)));
      for (const [i, m] of MODES.entries()) {
        const sbs = pboxes[i];
        if (sbs) rows[processRow(m)]?.push(await throughput(c, ops(c), (w) => sandboxExec(sbs[w] as Sandbox)));
      }
    }
  } finally {
    await Promise.all(idle.map((c) => c.remove({ force: true })));
    await Promise.all(boxes.map((b) => b.close()));
    await dp?.shutdown();
    await Promise.all(pps.map((pp) => pp.shutdown()));
  }

  const base = rows["(a) plain child process"] ?? [];
  console.log(`\npython3 -c 'print(1)' throughput, ops/s (ratio to (a) in this run); ${new Date().toISOString()}`);
  console.log(`${"".padEnd(38)}${levels.map((c) => `c=${c}`.padStart(20)).join("")}`);
  for (const [name, xs] of Object.entries(rows)) {
    console.log(`${name.padEnd(38)}${xs.map((x, i) => `${x.toFixed(1)} (${(x / (base[i] ?? 1)).toFixed(2)}×)`.padStart(20)).join("")}`);
  }

  for (const m of MODES) {
    const xs = rows[processRow(m)];
    if (xs)
      console.log(`(e ${m})/(a): ${xs.map((x, i) => `c=${levels[i]} ${(x / (base[i] ?? 1)).toFixed(2)}`).join(", ")} (goal ≥ 0.9 each)`);
  }
  if (!wants("d")) return;
  // Warm pool: acquire p50 with containers ready, and the memory of an idle warm one.
  const wp = await DockerSandboxProvider.create({ docker, warm: 2 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < Math.round(30 * SCALE); i++) {
      await wp.prewarm(req);
      const t0 = performance.now();
      const s = await wp.acquire(req);
      samples.push(performance.now() - t0);
      await s.close();
    }
    await wp.prewarm(req);
    const list = await docker.listContainers({ filters: { label: [`rlenv.owner=${process.pid}`] } });
    const mems = await Promise.all(
      list.map(async (c) => {
        const st = (await docker.getContainer(c.Id).stats({ stream: false })) as {
          memory_stats: { usage?: number; stats?: Record<string, number> };
        };
        const m = st.memory_stats;
        return ((m.usage ?? 0) - (m.stats?.total_inactive_file ?? m.stats?.cache ?? 0)) / 1024 ** 2;
      }),
    );
    console.log(
      `\nwarm-pool acquire: p50 ${p50(samples).toFixed(2)} ms, max ${Math.max(...samples).toFixed(2)} ms over ${samples.length} acquires`,
    );
    console.log(`idle warm container memory (usage - cache): ${mems.map((m) => `${m.toFixed(1)} MiB`).join(", ")}`);
  } finally {
    await wp.shutdown();
  }
  const d8 = rows["(d) rlenv docker sandbox exec"]?.[1] ?? 0;
  console.log(`\n(d)/(a) at concurrency 8: ${(d8 / (base[1] ?? 1)).toFixed(2)} (goal ≥ 0.8)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

/**
 * HumanEval validation cost: `rlenv validate --run environments/code-humaneval` (oracle and
 * nop on all 164 tasks: 328 rollouts) on the docker backend at the default concurrency,
 * against a baseline measured in the same run that does what a plain evaluation script
 * does: per rollout, the solution and the task's hidden check written to a folder and
 * `python3 _hidden_check.py` run there unsandboxed, 8 at a time. The process backend is timed too, for reference.
 *
 *   npx tsx test/bench/code-humaneval.ts            (BENCH_BACKENDS=docker,process to choose)
 *
 * The sandboxed side is the `rlenv` a user runs: the bundled CLI (dist/cli.js, rebuilt first
 * with `npm run build` so it matches the sources). BENCH_CLI=tsx runs src/cli/main.ts through
 * tsx instead, which adds tsx's own start-up (about a second here) to the sandboxed side.
 *
 * BENCH_ROUNDS=N (default 1) alternates baseline and sandboxed runs N times and reports each
 * round's ratio and their median.
 *
 * After each round, where each sandboxed run's wall went (see slotTimeline): the time with k
 * rollouts in flight for each k, and the rollouts' own time by phase.
 *
 * Prints the wall times, the time per rollout and each backend's ratio to the baseline
 * (goal for each backend: at most 1.25x). The baseline runs twice, before and after the
 * sandboxed runs, and the mean is used, so load from elsewhere on the machine counts
 * against both sides alike.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { textFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";

/** The goal for `validate --run` wall over the unsandboxed baseline, the same on either backend. */
const GOAL = 1.25;
const REPO = path.resolve(import.meta.dirname, "..", "..");
const ENV_DIR = path.join(REPO, "environments", "code-humaneval");
const BASELINE_THREADS = 8;
/** The interpreter the sandboxes use too (a version manager's shim on PATH would add its own start-up cost). */
const PYTHON = process.env.BENCH_PYTHON ?? "/usr/bin/python3";
const backends = (process.env.BENCH_BACKENDS ?? "docker,process").split(",").filter(Boolean);

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; quiet?: boolean; stdin?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { cwd: opts.cwd ?? REPO, stdio: ["pipe", "pipe", "pipe"] });
    c.stdin.on("error", () => {}); // a program that does not read its stdin may close it first
    c.stdin.end(opts.stdin ?? "");
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    c.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    c.on("error", reject);
    c.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Fields after the command name of /proc/<pid>/stat (field 3 onwards), or null. */
function procStat(pid: string): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * CPU milliseconds used so far by what each side runs (Linux; null where unreadable): this
 * process's waited-for children (the baseline's interpreters, or the rlenv CLI), the docker
 * containers (cgroup v1 cpuacct of the engine's parent cgroup) and the engine's daemons.
 * Unlike wall time it does not depend on what else the machine is doing.
 */
function cpuMs(): { children: number; containers: number | null; engine: number | null } {
  const self = procStat("self");
  const children = self ? (Number(self[13]) + Number(self[14])) * TICK_MS : 0;
  let containers: number | null = null;
  try {
    containers = Number(readFileSync("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage", "utf8")) / 1e6;
  } catch {}
  let engine: number | null = null;
  try {
    for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (comm !== "dockerd" && comm !== "containerd") continue;
      const st = procStat(pid);
      if (st) engine = (engine ?? 0) + (Number(st[11]) + Number(st[12])) * TICK_MS;
    }
  } catch {}
  return { children, containers, engine };
}

/**
 * A cgroup v1 cpuacct group the bench moves itself into while one side runs (Linux, as root):
 * everything that side starts is counted there, however it ends. The waited-for children's
 * times above miss a process sandbox's commands, which their agent's killed init never reaps
 * (they read as a third of the baseline's CPU when the sandbox spent more than the baseline).
 * Null where it cannot be made; the bench then counts waited-for children.
 */
const CPUACCT = "/sys/fs/cgroup/cpuacct";
const benchGroup = (() => {
  const dir = path.join(CPUACCT, `rlenv-bench-${process.pid}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return null;
  }
})();

/** CPU milliseconds the bench's cgroup counted so far (null without one). */
function groupCpuMs(): number | null {
  if (!benchGroup) return null;
  return Number(readFileSync(path.join(benchGroup, "cpuacct.usage"), "utf8")) / 1e6;
}

/** Moves the bench (and what it starts from now on) into its cgroup, or back to the root group. */
function joinGroup(inside: boolean): void {
  if (!benchGroup) return;
  writeFileSync(path.join(inside ? benchGroup : CPUACCT, "cgroup.procs"), String(process.pid));
}

/** CPU used between two cpuMs() readings, all parts together; NaN when a counter went back (an engine restarted). */
function cpuSince(a: ReturnType<typeof cpuMs>, groupAt: number | null): number {
  const b = cpuMs();
  const group = groupCpuMs();
  const own = group !== null && groupAt !== null ? group - groupAt : b.children - a.children;
  const parts = [own, (b.containers ?? 0) - (a.containers ?? 0), (b.engine ?? 0) - (a.engine ?? 0)];
  return parts.some((x) => x < 0) ? Number.NaN : parts.reduce((x, y) => x + y, 0);
}

/** Runs one side inside the bench's cgroup and returns its wall and CPU time. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpu: number }> {
  joinGroup(true);
  try {
    const c0 = cpuMs();
    const g0 = groupCpuMs();
    const t0 = performance.now();
    const value = await fn();
    const ms = performance.now() - t0;
    return { value, ms, cpu: cpuSince(c0, g0) };
  } finally {
    joinGroup(false);
  }
}

/**
 * What a plain harness runs per rollout: the oracle's or the empty body's solution.py beside
 * the task's hidden check, run as `python3 _hidden_check.py` with the sentinel line on stdin
 * (the check imports the submission in a child process of its own and prints the sentinel
 * only once check() returned).
 */
function baselinePrograms(): Array<{ id: string; files: Record<string, string>; expectPass: boolean }> {
  const { env } = loadEnvironment(ENV_DIR);
  if (!env) throw new Error(`cannot load ${ENV_DIR}`);
  return env.tasks.flatMap((t) => {
    const check = textFiles(t.tests?.files)["_hidden_check.py"] ?? "";
    const seed = textFiles(t.files)["solution.py"] ?? "";
    const solved = textFiles(t.solution?.files)["solution.py"] ?? "";
    return [
      { id: `${t.id}/oracle`, files: { "solution.py": solved, "_hidden_check.py": check }, expectPass: true },
      { id: `${t.id}/nop`, files: { "solution.py": seed, "_hidden_check.py": check }, expectPass: false },
    ];
  });
}

const SENTINEL = "rlenv-bench-sentinel";

/** Runs one baseline program in a folder of its own; whether it passed (exit 0 and the sentinel printed). */
async function runBaseline(files: Record<string, string>): Promise<boolean> {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-he-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const r = await run(PYTHON, ["_hidden_check.py"], { cwd: dir, stdin: `${SENTINEL}\n` });
    return r.code === 0 && r.stdout.includes(SENTINEL);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time and the CPU time of everything the side ran (see cpuMs), in milliseconds. */
interface Timed {
  ms: number;
  cpu: number;
}

async function baseline(): Promise<Timed> {
  const programs = baselinePrograms();
  let next = 0;
  let wrong = 0;
  const { ms, cpu } = await timed(() =>
    Promise.all(
      Array.from({ length: BASELINE_THREADS }, async () => {
        while (next < programs.length) {
          const p = programs[next++]!;
          if ((await runBaseline(p.files)) !== p.expectPass) wrong++;
        }
      }),
    ),
  );
  if (wrong > 0) throw new Error(`baseline: ${wrong} of ${programs.length} programs did not pass/fail as expected`);
  return { ms, cpu };
}

const CLI_MODE = process.env.BENCH_CLI === "tsx" ? "tsx" : "dist";
const cliArgv = CLI_MODE === "tsx" ? ["--import", "tsx", path.join(REPO, "src/cli/main.ts")] : [path.join(REPO, "dist", "cli.js")];

/** Rebuilds dist/cli.js from the sources, so the bundle timed is the code in the tree. */
async function buildCli(): Promise<void> {
  const r = await run("npm", ["run", "build"]);
  if (r.code !== 0)
    throw new Error(
      `npm run build failed (rerun with BENCH_CLI=tsx to time the sources through tsx):\n${(r.stdout + r.stderr).slice(-2000)}`,
    );
}

/**
 * Where the sandboxed side's wall time went, from its kept trajectories (each rollout's first
 * and last event times and its phase timings): how long k rollouts were in flight, for each k,
 * and the rollouts' own time split into sandbox start/close, verification and the rest. Idle
 * slots show as time at k below the concurrency; a serial phase as a stretch at k = 1.
 */
function slotTimeline(runsDir: string, wallMs: number): string {
  const spans: Array<{ from: number; to: number; timings: Record<string, number> }> = [];
  for (const run of readdirSync(runsDir)) {
    const dir = path.join(runsDir, run, "rollouts");
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
      const events = readFileSync(path.join(dir, f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; t?: number; timings?: Record<string, number> });
      const ts = events.flatMap((e) => (e.t === undefined ? [] : [e.t]));
      const end = events.find((e) => e.type === "end");
      if (ts.length > 0) spans.push({ from: Math.min(...ts), to: Math.max(...ts), timings: end?.timings ?? {} });
    }
  }
  if (spans.length === 0) return "  (no trajectories)";
  const edges = spans
    .flatMap((s) => [
      { t: s.from, d: 1 },
      { t: s.to, d: -1 },
    ])
    .sort((a, b) => a.t - b.t || a.d - b.d);
  const at = new Map<number, number>();
  let k = 0;
  let last = edges[0]!.t;
  for (const e of edges) {
    at.set(k, (at.get(k) ?? 0) + (e.t - last));
    k += e.d;
    last = e.t;
  }
  const first = edges[0]!.t;
  const span = last - first;
  const sum = (key: string) => spans.reduce((n, s) => n + (s.timings[key] ?? 0), 0);
  const total = sum("total_ms");
  const parts = ["sandbox_ms", "verify_ms", "policy_ms"].map(
    (key) => `${key.replace("_ms", "")} ${((100 * sum(key)) / total).toFixed(0)}%`,
  );
  const levels = [...at.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, ms]) => `${n}: ${(ms / 1000).toFixed(1)} s`)
    .join(", ");
  return [
    `  first rollout to last: ${fmt(span)} of ${fmt(wallMs)} (before: ${fmt(wallMs - span)} start-up and close of the CLI, outside any rollout)`,
    `  time with k rollouts in flight: ${levels}; mean in flight ${(total / span).toFixed(2)}`,
    `  rollouts' own time: ${parts.join(", ")} (sandbox: start and close; verify: the hidden check)`,
  ].join("\n");
}

/** Timelines of the sandboxed runs, printed after each round. */
const timelines: string[] = [];

async function validate(backend: string): Promise<Timed> {
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-bench-he-runs-"));
  const {
    value: r,
    ms,
    cpu,
  } = await timed(() =>
    run(process.execPath, [...cliArgv, "validate", "--run", "--sandbox", backend, "--json", "--runs", runsDir, ENV_DIR]),
  );
  try {
    timelines.push(`${backend}:\n${slotTimeline(runsDir, ms)}`);
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
  const report = JSON.parse(r.stdout) as { ok: boolean; run?: { environments?: Array<{ tasks: Array<{ ok: boolean }> }> } };
  const tasks = report.run?.environments?.[0]?.tasks ?? [];
  if (!report.ok || tasks.length !== 164)
    throw new Error(
      `validate --run on ${backend}: ok=${report.ok}, ${tasks.filter((t) => !t.ok).length} bad of ${tasks.length}\n${r.stdout.slice(0, 1000)}\n${r.stderr.slice(-2000)}`,
    );
  return { ms, cpu };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const perRollout = (ms: number) => `${(ms / 328).toFixed(0)} ms`;

/** One round: the sandboxed runs between two baselines (the round before's closing baseline opens this one). */
interface Round {
  before: Timed;
  after: Timed;
  rows: Array<[string, Timed]>;
}

const mean = (a: Timed, b: Timed): Timed => ({ ms: (a.ms + b.ms) / 2, cpu: (a.cpu + b.cpu) / 2 });

function printRound(r: Round, label: string): void {
  const base = mean(r.before, r.after);
  if (label) console.log(label);
  console.log(
    `${"".padEnd(34)}${"wall".padStart(10)}${"per rollout".padStart(14)}${"ratio".padStart(9)}${"cpu".padStart(10)}${"cpu ratio".padStart(11)}`,
  );
  console.log(
    `${"baseline (mean of 2)".padEnd(34)}${fmt(base.ms).padStart(10)}${perRollout(base.ms).padStart(14)}${"1.00x".padStart(9)}${fmt(base.cpu).padStart(10)}${"1.00x".padStart(11)}`,
  );
  console.log(`${"  baseline before / after".padEnd(34)}${`${fmt(r.before.ms)} / ${fmt(r.after.ms)}`.padStart(10)}`);
  for (const [name, t] of r.rows) {
    console.log(
      `${name.padEnd(34)}${fmt(t.ms).padStart(10)}${perRollout(t.ms).padStart(14)}${`${(t.ms / base.ms).toFixed(2)}x`.padStart(9)}${fmt(t.cpu).padStart(10)}${`${(t.cpu / base.cpu).toFixed(2)}x`.padStart(11)}`,
    );
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
};

async function main(): Promise<void> {
  // BENCH_ROUNDS > 1 repeats baseline / sandboxed alternately: on a shared machine the load
  // drifts, and each round compares a sandboxed run with the baselines on either side of it.
  const roundsWanted = Math.max(1, Number.parseInt(process.env.BENCH_ROUNDS ?? "1", 10) || 1);
  if (CLI_MODE === "dist") await buildCli();
  console.log(
    `HumanEval, 164 tasks x (oracle + nop) = 328 rollouts; baseline: python3 _hidden_check.py per rollout, ${BASELINE_THREADS} at a time, unsandboxed`,
  );
  console.log(
    `rlenv: ${CLI_MODE === "dist" ? "dist/cli.js (the bundled CLI, rebuilt)" : "src/cli/main.ts through tsx"}; default concurrency`,
  );
  console.log(
    `cpu: CPU time of the side's processes (${benchGroup ? "all, counted in a cpuacct cgroup" : "waited-for children only: no cpuacct cgroup could be made"}), containers and container engine (Linux, cgroup v1 accounting where present)`,
  );
  console.log(`load average at start: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  const rounds: Round[] = [];
  let before = await baseline();
  for (let i = 0; i < roundsWanted; i++) {
    const rows: Array<[string, Timed]> = [];
    for (const b of backends) rows.push([`rlenv validate --run (${b})`, await validate(b)]);
    const after = await baseline();
    rounds.push({ before, after, rows });
    printRound(rounds[i]!, roundsWanted > 1 ? `round ${i + 1}` : "");
    console.log(timelines.splice(0).join("\n"));
    before = after;
  }
  // Each sandboxed backend against the baseline of its own round.
  for (const backend of ["process", "docker"]) {
    const ratios = rounds.flatMap((r) =>
      r.rows
        .filter(([n]) => n.includes(`(${backend})`))
        .map(([, t]) => ({ wall: t.ms / mean(r.before, r.after).ms, cpu: t.cpu / mean(r.before, r.after).cpu })),
    );
    if (ratios.length === 0) continue;
    const wall = median(ratios.map((d) => d.wall));
    const list = ratios.map((d) => `${d.wall.toFixed(2)}x`).join(", ");
    console.log(
      `${backend} ratio ${list}${ratios.length > 1 ? ` (median ${wall.toFixed(2)}x)` : ""} (goal <= ${GOAL}x): ${wall <= GOAL ? "met" : "NOT met"}; cpu ratio ${median(ratios.map((d) => d.cpu).filter((x) => !Number.isNaN(x))).toFixed(2)}x`,
    );
  }
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    if (!benchGroup) return;
    joinGroup(false);
    try {
      rmdirSync(benchGroup);
    } catch {}
  });

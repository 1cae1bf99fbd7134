/**
 * HumanEval validation cost: `rlenv validate --run environments/code-humaneval` (oracle and
 * nop on all 164 tasks: 328 rollouts) on the docker backend at the default concurrency,
 * against a baseline measured in the same run that does what a plain evaluation script
 * does: one unsandboxed `python3 -c <prompt + completion + test + check(entry)>` per
 * rollout, 8 at a time. The process backend is timed too, for reference.
 *
 *   npx tsx test/bench/code-humaneval.ts            (BENCH_BACKENDS=docker,process to choose)
 *
 * Prints the wall times, the time per rollout and each backend's ratio to the baseline
 * (goal for docker: at most 1.5x). The baseline runs twice, before and after the
 * sandboxed runs, and the mean is used, so load from elsewhere on the machine counts
 * against both sides alike.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const ENV_DIR = path.join(REPO, "environments", "code-humaneval");
const BASELINE_THREADS = 8;
/** The interpreter the sandboxes use too (a version manager's shim on PATH would add its own start-up cost). */
const PYTHON = process.env.BENCH_PYTHON ?? "/usr/bin/python3";
const backends = (process.env.BENCH_BACKENDS ?? "docker,process").split(",").filter(Boolean);

function run(cmd: string, args: string[], opts: { cwd?: string; quiet?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { cwd: opts.cwd ?? REPO, stdio: ["ignore", "pipe", "pipe"] });
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

/** The programs a plain harness runs: the oracle's and the empty body's, each with its check. */
function baselinePrograms(): Array<{ id: string; program: string; expectPass: boolean }> {
  const { env } = loadEnvironment(ENV_DIR);
  if (!env) throw new Error(`cannot load ${ENV_DIR}`);
  return env.tasks.flatMap((t) => {
    const check = (t.tests?.files?.["_hidden_check.py"] ?? "").replace(/^from solution import .*$/gm, "");
    const seed = t.files?.["solution.py"] ?? "";
    const solved = t.solution?.files?.["solution.py"] ?? "";
    return [
      { id: `${t.id}/oracle`, program: `${solved}\n${check}`, expectPass: true },
      { id: `${t.id}/nop`, program: `${seed}\n${check}`, expectPass: false },
    ];
  });
}

async function baseline(): Promise<number> {
  const programs = baselinePrograms();
  let next = 0;
  let wrong = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: BASELINE_THREADS }, async () => {
      while (next < programs.length) {
        const p = programs[next++]!;
        const r = await run(PYTHON, ["-c", p.program], { cwd: "/tmp" });
        if ((r.code === 0) !== p.expectPass) wrong++;
      }
    }),
  );
  const ms = performance.now() - t0;
  if (wrong > 0) throw new Error(`baseline: ${wrong} of ${programs.length} programs did not pass/fail as expected`);
  return ms;
}

async function validate(backend: string): Promise<number> {
  const t0 = performance.now();
  const r = await run(process.execPath, ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), "validate", "--run", "--sandbox", backend, "--json", ENV_DIR]);
  const ms = performance.now() - t0;
  const report = JSON.parse(r.stdout) as { ok: boolean; run?: { environments: Array<{ tasks: Array<{ ok: boolean }> }> } };
  const tasks = report.run?.environments[0]?.tasks ?? [];
  if (!report.ok || tasks.length !== 164) throw new Error(`validate --run on ${backend}: ok=${report.ok}, ${tasks.filter((t) => !t.ok).length} bad of ${tasks.length}\n${r.stderr.slice(-2000)}`);
  return ms;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const perRollout = (ms: number) => `${(ms / 328).toFixed(0)} ms`;

async function main(): Promise<void> {
  const before = await baseline();
  const rows: Array<[string, number]> = [];
  for (const b of backends) rows.push([`rlenv validate --run (${b})`, await validate(b)]);
  const after = await baseline();
  const base = (before + after) / 2;

  console.log(`HumanEval, 164 tasks x (oracle + nop) = 328 rollouts; baseline: python3 -c per rollout, ${BASELINE_THREADS} at a time, unsandboxed`);
  console.log(`${"".padEnd(34)}${"wall".padStart(10)}${"per rollout".padStart(14)}${"ratio".padStart(9)}`);
  console.log(`${"baseline (mean of 2)".padEnd(34)}${fmt(base).padStart(10)}${perRollout(base).padStart(14)}${"1.00x".padStart(9)}`);
  console.log(`${"  baseline before / after".padEnd(34)}${`${fmt(before)} / ${fmt(after)}`.padStart(10)}`);
  for (const [name, ms] of rows) console.log(`${name.padEnd(34)}${fmt(ms).padStart(10)}${perRollout(ms).padStart(14)}${`${(ms / base).toFixed(2)}x`.padStart(9)}`);
  const docker = rows.find(([n]) => n.includes("docker"));
  if (docker) console.log(`docker ratio ${(docker[1] / base).toFixed(2)}x (goal <= 1.5x): ${docker[1] / base <= 1.5 ? "met" : "NOT met"}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

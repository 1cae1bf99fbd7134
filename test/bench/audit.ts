/**
 * Audit cost: `rlenv audit environments/code-humaneval` (the oracle N times, every probe,
 * up to M mutants per task) against `rlenv validate --run` on the same environment and the
 * same tasks, measured in the same run, on the same backend. Prints both wall times, the
 * rollouts each made, and the ratio audit / validate.
 *
 *   npx tsx test/bench/audit.ts
 *
 * BENCH_ENV (default environments/code-humaneval), BENCH_TASKS (how many of its tasks, from
 * the first; default all), BENCH_BACKEND (default docker), BENCH_RUNS / BENCH_MUTANTS (the
 * audit's --runs and --mutants; defaults 5 and 20). The goal on docker for all 164 HumanEval
 * tasks is under 10 minutes. Validate runs before and after the audit and the mean is used,
 * so load from elsewhere on the machine counts against both sides alike.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const ENV_DIR = path.resolve(REPO, process.env.BENCH_ENV ?? "environments/code-humaneval");
const BACKEND = process.env.BENCH_BACKEND ?? "docker";
const RUNS = process.env.BENCH_RUNS ?? "5";
const MUTANTS = process.env.BENCH_MUTANTS ?? "20";

function rlenv(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), ...args], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    c.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    c.on("error", reject);
    c.on("close", (code) => resolve({ code, stderr, ms: performance.now() - t0 }));
  });
}

/** Rollouts written under a runs folder (every rollouts/*.jsonl, at any depth). */
function countRollouts(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith(".jsonl") && path.basename(e.parentPath) === "rollouts") n++;
  return n;
}

const loaded = loadEnvironment(ENV_DIR).env;
if (!loaded) throw new Error(`${ENV_DIR} does not load`);
const env = loaded;
const limit = process.env.BENCH_TASKS ? Number(process.env.BENCH_TASKS) : env.tasks.length;
const tasks = env.tasks.slice(0, limit).map((t) => t.id);
const taskArgs = tasks.length < env.tasks.length ? ["--tasks", ...tasks] : [];
const work = mkdtempSync(path.join(os.tmpdir(), "rlenv-bench-audit-"));

async function validate(round: number): Promise<{ ms: number; rollouts: number }> {
  const runs = path.join(work, `validate-${round}`);
  const r = await rlenv(["validate", ENV_DIR, "--run", "--sandbox", BACKEND, "--runs", runs, ...taskArgs]);
  if (r.code !== 0) throw new Error(`validate --run failed (exit ${r.code}): ${r.stderr.slice(-2000)}`);
  return { ms: r.ms, rollouts: countRollouts(runs) };
}

async function main(): Promise<void> {
  console.log(`${env.manifest.name}: ${tasks.length} tasks on ${BACKEND}; audit --runs ${RUNS} --mutants ${MUTANTS}`);
  const v1 = await validate(1);
  const out = path.join(work, "audit");
  const a = await rlenv(["audit", ENV_DIR, "--sandbox", BACKEND, "--runs", RUNS, "--mutants", MUTANTS, "--out", out, ...taskArgs]);
  if (a.code !== 0 && a.code !== 1) throw new Error(`audit failed to run (exit ${a.code}): ${a.stderr.slice(-2000)}`);
  const report = JSON.parse(readFileSync(path.join(out, "audit.json"), "utf8")) as {
    ok: boolean;
    environments: Array<{ phases?: Array<{ phase: string; seconds: number; rollouts: number }> }>;
  };
  const auditRollouts = countRollouts(path.join(out, "runs"));
  const v2 = await validate(2);
  const vMs = (v1.ms + v2.ms) / 2;
  console.log(
    `validate --run: ${(vMs / 1000).toFixed(1)} s (${(v1.ms / 1000).toFixed(1)} s, ${(v2.ms / 1000).toFixed(1)} s), ${v1.rollouts} rollouts, ${(vMs / v1.rollouts).toFixed(0)} ms per rollout`,
  );
  console.log(
    `audit:          ${(a.ms / 1000).toFixed(1)} s, ${auditRollouts} rollouts, ${(a.ms / auditRollouts).toFixed(0)} ms per rollout, verdict ${report.ok ? "pass" : "fail"}`,
  );
  console.log(
    `ratio audit / validate --run: ${(a.ms / vMs).toFixed(2)}x wall, ${(a.ms / auditRollouts / (vMs / v1.rollouts)).toFixed(2)}x per rollout`,
  );
  // Where the audit's time went, each phase as a share of the audit and as a multiple of validate --run.
  for (const p of report.environments[0]?.phases ?? [])
    console.log(
      `  ${p.phase.padEnd(26)} ${p.seconds.toFixed(1).padStart(7)} s ${String(p.rollouts).padStart(5)} rollouts  ${((p.seconds * 1000 * 100) / a.ms).toFixed(0).padStart(3)} % of the audit, ${((p.seconds * 1000) / vMs).toFixed(2)}x validate`,
    );
  if (tasks.length < env.tasks.length)
    console.log(
      `(a subset: ${tasks.length} of ${env.tasks.length} tasks; the whole audit would take about ${(((a.ms / tasks.length) * env.tasks.length) / 60000).toFixed(1)} min at this rate)`,
    );
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));

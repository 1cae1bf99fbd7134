/**
 * Fleet failover: one 600-rollout job over a pool of three loopback runners, one of which is
 * killed (SIGKILL) when half the rollouts have come home, against the same job on two runners
 * from the start, in the same run. Checks that the failed-over job holds 600 rollouts, none
 * twice, and prints the wall-time ratio (goal: within 1.3×).
 *   npx tsx test/bench/fleet-failover.ts [--tasks 60] [-k 10] [--nap 1] [--concurrency 4] [--heartbeat 2]
 * Rollouts nap in a custom tool (process sandbox), so a runner's throughput is its slots, not
 * this machine's two cores. Runners are the built CLI (dist/cli.js, built first).
 * Note: each shard is a job on its member, with --concurrency rollouts in flight; a survivor
 * that takes a dead member's share runs it as a second job beside its own, so after the
 * failover it has up to twice the rollouts in flight of a baseline runner.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadPool } from "../../src/core/fleet/pool-config";
import { runOnPool } from "../../src/core/fleet/pool-run";
import { makeFixtureEnv, REPO, type StartedRunner, startRunner } from "../integration/remote-helpers";
import { arg } from "./options";

const tasks = Number(arg("tasks", "60"));
const k = Number(arg("-k", "10"));
const nap = Number(arg("nap", "1"));
const concurrency = Number(arg("concurrency", "4"));
const heartbeat = Number(arg("heartbeat", "2"));
const total = tasks * k;
const CLI = [process.execPath, path.join(REPO, "dist", "cli.js")];

async function once(
  runners: number,
  killAtHalf: boolean,
): Promise<{ wallS: number; kept: number; files: number; duplicates: number; failovers: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-fleet-bench-"));
  const started: StartedRunner[] = [];
  try {
    started.push(
      ...(await Promise.all(Array.from({ length: runners }, (_, i) => startRunner(path.join(dir, `data${i}`), ["--max-jobs", "2"], CLI)))),
    );
    const yaml = path.join(dir, "runners.yaml");
    writeFileSync(
      yaml,
      `runners:\n${started.map((r, i) => `  r${i}: { url: "${r.url}" }`).join("\n")}\npools:\n  bench: { members: [${started.map((_, i) => `r${i}`).join(", ")}], heartbeat_s: ${heartbeat}, stall_s: 60 }\n`,
    );
    started.forEach((r, i) => {
      process.env[`RLENV_RUNNER_TOKEN_R${i}`] = r.token;
    });
    const env = makeFixtureEnv(tasks, nap, dir);
    let killed = false;
    const t0 = performance.now();
    const { runDir, record } = await runOnPool({
      pool: loadPool("bench", {}, yaml),
      envDir: env,
      request: { policy: "oracle", k, concurrency, sandbox: "process", executor: "local" },
      runsDir: path.join(dir, "runs"),
      log: (l) => process.stderr.write(`  ${l}\n`),
      onProgress: (p) => {
        if (killAtHalf && !killed && p.rollouts.kept >= total / 2) {
          killed = true;
          process.stderr.write(`  kill -9 r0 at ${p.rollouts.kept}/${total}\n`);
          started[0]?.proc.kill("SIGKILL");
        }
      },
    });
    const wallS = (performance.now() - t0) / 1000;
    if (record.state !== "completed") throw new Error(`job ${record.state}: ${record.error}`);
    const files = readdirSync(path.join(runDir, "rollouts")).filter((f) => f.endsWith(".jsonl"));
    if (new Set(files).size !== files.length || files.length !== total)
      throw new Error(`${files.length} rollout files, want ${total} distinct`);
    return {
      wallS,
      kept: record.rollouts.kept,
      files: files.length,
      duplicates: record.duplicates.length,
      failovers: record.failovers.length,
    };
  } finally {
    for (const r of started) if (r.proc.exitCode === null && r.proc.signalCode === null) await r.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const build = spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: "ignore" });
  if (build.status !== 0) throw new Error("npm run build failed");
  console.log(
    `fleet failover: ${total} rollouts (${tasks} tasks × ${k}), nap ${nap} s, concurrency ${concurrency} per shard, heartbeat ${heartbeat} s`,
  );
  const failover = await once(3, true);
  console.log(
    `3 runners, r0 killed at half: ${failover.wallS.toFixed(1)} s, ${failover.files} rollouts (${failover.duplicates} duplicates recorded, ${failover.failovers} failover(s))`,
  );
  const baseline = await once(2, false);
  console.log(`2 runners from the start:     ${baseline.wallS.toFixed(1)} s, ${baseline.files} rollouts`);
  const ratio = failover.wallS / baseline.wallS;
  console.log(`failover / two-runner baseline: ${ratio.toFixed(2)}× (goal ≤ 1.3×) ${ratio <= 1.3 ? "met" : "NOT met"}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

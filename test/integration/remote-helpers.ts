import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { SlurmClient } from "../../src/core/remote/executors/slurm-client";
import { missing } from "../support/services";
import { rlenvCommand } from "../support/cli";

export const REPO = path.resolve(__dirname, "../..");
/** The CLI: dist/cli.js when it is fresh, else the sources through tsx (see test/support/cli.ts). */
export const RLENV: readonly string[] = rlenvCommand();

/**
 * A tiny environment for runner tests: `tasks` tasks whose oracle calls a custom tool
 * that sleeps `sleepS` seconds (no tool call at all when null), then submits the answer
 * graded by an exact verifier.
 */
const madeRoots: string[] = [];
// Fixture folders go when the test process ends.
process.once("exit", () => {
  for (const r of madeRoots) rmSync(r, { recursive: true, force: true });
});

export function makeFixtureEnv(tasks: number, sleepS: number | null, root?: string): string {
  if (!root) {
    root = mkdtempSync(path.join(tmpdir(), "rlenv-remote-env-"));
    madeRoots.push(root);
  }
  const dir = path.join(root, "env");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "environment.yaml"),
    `name: remote-fixture
domain: custom
description: Sleep a little through a custom tool, then submit the task's number.
sandbox:
  workdir: /workspace
  timeouts: { step: 30, rollout: 120 }
tasks: tasks.jsonl
tools:
  - submit
  - name: nap
    description: Sleep for some seconds, then print done.
    parameters:
      type: object
      properties: { seconds: { type: number } }
    command: python3 -c 'import json,sys,time; time.sleep(json.load(sys.stdin)["seconds"]); print("done")'
max_turns: 4
reward:
  - type: exact
    name: answer
`,
  );
  const lines = Array.from({ length: tasks }, (_, i) =>
    JSON.stringify({
      id: `t${i}`,
      prompt: `Nap, then submit ${i}.`,
      target: String(i),
      solution: { ...(sleepS === null ? {} : { tool_calls: [{ name: "nap", arguments: { seconds: sleepS } }] }), answer: String(i) },
    }),
  );
  writeFileSync(path.join(dir, "tasks.jsonl"), `${lines.join("\n")}\n`);
  return dir;
}

export interface StartedRunner {
  url: string;
  token: string;
  proc: ChildProcess;
  output: string[];
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `rlenv runner serve --port 0 --data DIR [extra]` and waits for its listening line.
 * `rlenv` is the command line that starts the CLI (the runner's units run the same).
 */
export async function startRunner(dataDir: string, extra: string[] = [], rlenv: readonly string[] = RLENV): Promise<StartedRunner> {
  const [cmd, ...pre] = rlenv;
  if (!cmd) throw new Error("no node");
  // RLENV_RUNNER_CPU_PROF=DIR profiles the runner process (benchmarks), e.g. for test/bench/remote.ts.
  const prof = process.env.RLENV_RUNNER_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.RLENV_RUNNER_CPU_PROF}`] : [];
  const proc = spawn(cmd, [...prof, ...pre, "runner", "serve", "--port", "0", "--data", dataDir, ...extra], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env },
  });
  const output: string[] = [];
  createInterface({ input: proc.stderr ?? process.stdin }).on("line", (l) => output.push(l));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`runner did not start in 30 s:\n${output.join("\n")}`)), 30_000);
    createInterface({ input: proc.stdout ?? process.stdin }).on("line", (l) => {
      output.push(l);
      const m = /runner listening on (\S+)/.exec(l);
      if (m?.[1]) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc.on("exit", (code) => reject(new Error(`runner exited with ${code}:\n${output.join("\n")}`)));
  });
  const token = readFileSync(path.join(dataDir, "token"), "utf8").trim();
  const exited = new Promise<void>((r) => proc.on("exit", () => r()));
  return {
    url,
    token,
    proc,
    output,
    kill: async () => {
      proc.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  everyMs = 100,
  lastSeen?: () => string,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${lastSeen ? `; last seen: ${lastSeen()}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The Slurm that test/setup/slurm.sh started, as its env file describes it: why tests
 * that need it skip (false when it is there), `rlenv runner serve` flags that enable the
 * slurm executor against it, and a slurmrestd client for looking behind the runner.
 */
export const slurmSkip: string | false =
  missing("slurm") ||
  (process.env.RLENV_SLURM_URL
    ? false
    : "slurm: RLENV_SLURM_URL not set (run test/setup/slurm.sh and source .test-artifacts/services/env)");

export function slurmRunnerArgs(opts: { partition?: boolean } = {}): string[] {
  const env = process.env;
  return [
    "--slurm-url",
    env.RLENV_SLURM_URL ?? "",
    "--slurm-user",
    env.RLENV_SLURM_USER ?? "root",
    "--slurm-token-file",
    env.RLENV_SLURM_TOKEN_FILE ?? "",
    ...(opts.partition ? ["--slurm-partition", env.RLENV_SLURM_PARTITION ?? "debug"] : []),
    "--slurm-poll-ms",
    "300",
  ];
}

export function slurmClient(): SlurmClient {
  const env = process.env;
  return new SlurmClient({
    url: env.RLENV_SLURM_URL ?? "",
    user: env.RLENV_SLURM_USER ?? "root",
    token: readFileSync(env.RLENV_SLURM_TOKEN_FILE ?? "", "utf8").trim(),
  });
}

/**
 * Every file under a run folder, relative and sorted; folders that are links (a runner's
 * merged `rollouts` can be one, see merge.ts) are followed, as a pull follows them.
 */
export function runFolderFiles(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel))
    .flatMap((name) => {
      const r = rel ? path.join(rel, name) : name;
      return statSync(path.join(dir, r)).isDirectory() ? runFolderFiles(dir, r) : [r];
    })
    .sort();
}

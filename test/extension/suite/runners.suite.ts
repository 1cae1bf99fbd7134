import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import * as vscode from "vscode";
import { RunnerClient } from "../../../src/core/remote/client/client";
import { extensionApi, waitFor, workspaceDir } from "./helpers";

/**
 * Remote runners from the editor: a real runner (`rlenv runner serve`) on loopback,
 * added with its token (SecretStorage), a job submitted, watched, cancelled or finished,
 * and pulled into runs/ where the dashboard opens it; on the local executor and, where
 * test/setup/slurm.sh brought Slurm up, on the slurm executor.
 */
const repo = () => process.env.RLENV_REPO ?? path.resolve(__dirname, "../../..");

interface Runner {
  url: string;
  token: string;
  proc: ChildProcess;
  data: string;
}

async function startRunner(extra: string[]): Promise<Runner> {
  const data = mkdtempSync(
    path.join(process.env.RLENV_SLURM_SHARED && extra.length ? process.env.RLENV_SLURM_SHARED : tmpdir(), "ext-runner-"),
  );
  // The project's Node (20), not the editor's: the runner runs rlenv from source via tsx.
  const proc = spawn(
    process.env.RLENV_NODE ?? "node",
    ["--import", "tsx", path.join(repo(), "src/cli/main.ts"), "runner", "serve", "--port", "0", "--data", data, ...extra],
    { cwd: repo(), stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const lines: string[] = [];
    const t = setTimeout(() => reject(new Error(`runner did not start: ${lines.join("\n")}`)), 30_000);
    createInterface({ input: proc.stderr! }).on("line", (l) => lines.push(l));
    createInterface({ input: proc.stdout! }).on("line", (l) => {
      const m = /runner listening on (\S+)/.exec(l);
      if (m?.[1]) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
  return { url, token: readFileSync(path.join(data, "token"), "utf8").trim(), proc, data };
}

function fixtureEnv(name: string, tasks: number, sleepS: number): string {
  const dir = path.join(workspaceDir(), "scratch", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "environment.yaml"),
    `name: ${name}\ndomain: custom\ndescription: Nap, then submit the task's number.\nsandbox:\n  workdir: /workspace\n  timeouts: { step: 120, rollout: 300 }\ntasks: tasks.jsonl\ntools:\n  - submit\n  - name: nap\n    description: Sleep.\n    parameters:\n      type: object\n      properties: { seconds: { type: number } }\n    command: python3 -c 'import json,sys,time; time.sleep(json.load(sys.stdin)["seconds"]); print("done")'\nmax_turns: 4\nreward:\n  - type: exact\n    name: answer\n`,
  );
  const lines = Array.from({ length: tasks }, (_, i) =>
    JSON.stringify({
      id: `t${i}`,
      prompt: `Submit ${i}.`,
      target: String(i),
      solution: { tool_calls: [{ name: "nap", arguments: { seconds: sleepS } }], answer: String(i) },
    }),
  );
  writeFileSync(path.join(dir, "tasks.jsonl"), `${lines.join("\n")}\n`);
  return dir;
}

for (const executor of ["local", "slurm"] as const) {
  suite(`runners (${executor} executor)`, () => {
    let runner: Runner | undefined;
    let client: RunnerClient;
    const name = `loopback-${executor}`;

    suiteSetup(async function () {
      if (executor === "slurm" && (!process.env.RLENV_SLURM_URL || process.env.RLENV_MISSING_slurm)) {
        this.skip();
        return;
      }
      await extensionApi();
      const slurmArgs =
        executor === "slurm"
          ? [
              "--slurm-url",
              process.env.RLENV_SLURM_URL ?? "",
              "--slurm-user",
              process.env.RLENV_SLURM_USER ?? "root",
              "--slurm-token-file",
              process.env.RLENV_SLURM_TOKEN_FILE ?? "",
              "--slurm-poll-ms",
              "300",
            ]
          : [];
      runner = await startRunner(slurmArgs);
      client = new RunnerClient({ url: runner.url, token: runner.token });
    });
    suiteTeardown(async () => {
      if (!runner) return;
      runner.proc.kill("SIGTERM");
      await new Promise((r) => runner?.proc.once("exit", r));
      rmSync(runner.data, { recursive: true, force: true });
      await vscode.commands.executeCommand("rlenv.removeRunner", { kind: "runner", runner: name });
    });

    test("Add Runner checks the token with the runner first: a wrong one saves nothing", async () => {
      assert.ok(runner);
      const added = await vscode.commands.executeCommand("rlenv.addRunner", { name, url: runner.url, token: `${runner.token}x` });
      assert.equal(added, false);
      const settings = JSON.stringify(vscode.workspace.getConfiguration("rlenv").get("runners") ?? []);
      assert.ok(!settings.includes(runner.url), "a runner whose token was refused is not added");
    });

    test("Add Runner keeps the token in SecretStorage, not in settings", async () => {
      assert.ok(runner);
      assert.equal(await vscode.commands.executeCommand("rlenv.addRunner", { name, url: runner.url, token: runner.token }), true);
      const settings = JSON.stringify(vscode.workspace.getConfiguration("rlenv").get("runners"));
      assert.ok(settings.includes(runner.url));
      assert.ok(!settings.includes(runner.token), "the token is not in settings");
    });

    test("Submit to Runner, watch it finish, Pull Run: the pulled run opens in the dashboard", async () => {
      const env = fixtureEnv(`remote-${executor}`, 2, 0);
      const jobId = await vscode.commands.executeCommand<string>("rlenv.submitToRunner", {
        envDir: env,
        runner: name,
        policy: "oracle",
        executor,
        sandbox: "process",
        ...(executor === "slurm" ? { slurm: { shards: 2, gpus_per_shard: 1 } } : {}),
      });
      assert.match(jobId ?? "", /^j/);
      const job = await waitFor(
        "the job to complete",
        async () => {
          const j = await client.job(jobId);
          return j.state === "completed" || j.state === "failed" ? j : undefined;
        },
        180_000,
      );
      assert.equal(job.state, "completed", job.error);
      const dir = await vscode.commands.executeCommand<string>("rlenv.pullRun", { runner: name, jobId });
      assert.ok(dir?.startsWith(workspaceDir()), `pulled into the workspace: ${dir}`);
      assert.ok(existsSync(path.join(dir, "run.json")));
      assert.equal(readdirSync(path.join(dir, "rollouts")).length, 2);
      const summary = JSON.parse(readFileSync(path.join(dir, "summary.json"), "utf8")) as { mean_reward: number };
      assert.equal(summary.mean_reward, 1);
      await waitFor("the dashboard of the pulled run", () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((t) => t.input instanceof vscode.TabInputWebview && /dashboard/i.test(t.input.viewType)),
      );
    });

    test("Cancel Job stops a running job", async () => {
      const env = fixtureEnv(`remote-slow-${executor}`, 2, 60);
      const jobId = await vscode.commands.executeCommand<string>("rlenv.submitToRunner", {
        envDir: env,
        runner: name,
        policy: "oracle",
        executor,
        sandbox: "process",
      });
      await waitFor(
        "the job to run",
        async () => ((await client.job(jobId)).units.some((u) => u.state === "running") ? true : undefined),
        120_000,
      );
      assert.equal(await vscode.commands.executeCommand("rlenv.cancelJob", { runner: name, jobId }), "cancelled");
      assert.equal((await client.job(jobId)).state, "cancelled");
    });
  });
}

suite("runner pools in the Runners view", () => {
  let runner: Runner | undefined;
  let yaml = "";
  const before = process.env.RLENV_RUNNERS;

  suiteSetup(async () => {
    await extensionApi();
    runner = await startRunner([]);
    // The view reads the CLI's runners.yaml: one member that answers, one that cannot (nothing listens on port 9).
    yaml = path.join(mkdtempSync(path.join(tmpdir(), "ext-pools-")), "runners.yaml");
    writeFileSync(
      yaml,
      `runners:\n  pool-up: { url: "${runner.url}" }\n  pool-gone: { url: "http://127.0.0.1:9" }\npools:\n  lab: { members: [pool-up, pool-gone] }\n`,
    );
    process.env.RLENV_RUNNERS = yaml;
    process.env.RLENV_RUNNER_TOKEN_POOL_UP = runner.token;
    process.env.RLENV_RUNNER_TOKEN_POOL_GONE = "x";
  });
  suiteTeardown(async () => {
    if (before === undefined) delete process.env.RLENV_RUNNERS;
    else process.env.RLENV_RUNNERS = before;
    delete process.env.RLENV_RUNNER_TOKEN_POOL_UP;
    delete process.env.RLENV_RUNNER_TOKEN_POOL_GONE;
    if (!runner) return;
    runner.proc.kill("SIGTERM");
    await new Promise((r) => runner?.proc.once("exit", r));
    rmSync(runner.data, { recursive: true, force: true });
  });

  test("a pool shows above the runners with each member's health: up with its load, down with why", async () => {
    const { runners: tree } = await extensionApi();
    const members = await tree.refreshPool("lab");
    assert.deepEqual(
      members.map((m) => [m.name, m.state]),
      [
        ["pool-up", "up"],
        ["pool-gone", "down"],
      ],
    );
    const roots = tree.getChildren();
    const pool = roots.find((n) => n.kind === "pool");
    assert.ok(pool, JSON.stringify(roots));
    assert.equal(roots.indexOf(pool), 0, "pools come before the runners");
    assert.match(String(tree.getTreeItem(pool).description), /^pool · 1\/2 up$/);
    const rows = tree.getChildren(pool).map((n) => `${String(tree.getTreeItem(n).label)}: ${String(tree.getTreeItem(n).description)}`);
    assert.match(rows[0] ?? "", /^pool-up: up · 0\/2 jobs · 0 queued · (\d+\/\d+ GPUs idle|\d+ CPUs)$/);
    assert.match(rows[1] ?? "", /^pool-gone: down · .*ECONNREFUSED/);
  });
});

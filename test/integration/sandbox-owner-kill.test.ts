// A SIGKILLed `rlenv run` gets no chance to clean up: its sandboxes must go by themselves
// (docker: the agent exits when its owner's connection drops, and the container is
// auto-removed) or at the next command of any kind (process: folders and cgroups swept).
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import Docker from "dockerode";
import { HOST_LABEL, OWNER_LABEL, OWNER_START_LABEL } from "../../src/core/sandbox/docker/container";
import { sweepOrphanContainers } from "../../src/core/sandbox/docker/sweep";
import { processStart } from "../../src/core/util/owner";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { defaultSandboxBase } from "../../src/core/sandbox/process/sweep";
import { rlenvArgv } from "../support/cli";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";
import { tmp } from "./rollout-helpers";

const ROOT = path.join(__dirname, "../..");
const IN_FLIGHT = 6;

/** An environment whose oracle sits in a long command, so every rollout is in flight when the run is killed. */
function hangingEnv(): { dir: string; cleanup: () => void } {
  return makeEnvDir({
    "environment.yaml": [
      "name: owner-kill",
      "domain: custom",
      "tasks: tasks.jsonl",
      "tools: [bash, submit]",
      "sandbox:",
      "  image: rlenv/python:bookworm",
      "  timeouts: { step: 600, rollout: 900 }",
      "reward:",
      "  - type: exact",
      "",
    ].join("\n"),
    "tasks.jsonl": `${JSON.stringify({ id: "hang", prompt: "wait", target: "x", solution: { commands: ["sleep 300"], answer: "x" } })}\n`,
  });
}

function startRun(env: string, backend: "docker" | "process"): { child: ChildProcess; stderr: () => string } {
  const runs = tmp("rlenv-kill-runs-");
  const child = spawn(
    ...rlenvArgv([
      "run",
      env,
      "--policy",
      "oracle",
      "--sandbox",
      backend,
      "-k",
      String(IN_FLIGHT),
      "--concurrency",
      String(IN_FLIGHT),
      "--runs",
      runs,
    ]),
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  return { child, stderr: () => err };
}

async function poll(what: string, cond: () => Promise<boolean> | boolean, ms: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (await cond()) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const docker = new Docker();
const owned = async (pid: number) => docker.listContainers({ all: true, filters: { label: [`rlenv.owner=${pid}`] } });
/** Processes named `sleep 300` in a container: the oracle's command is running there. */
const busy = async (pid: number) => {
  const list = (await owned(pid)).filter((c) => c.State === "running");
  const tops = await Promise.all(
    list.map((c) =>
      docker
        .getContainer(c.Id)
        .top()
        .catch(() => ({ Processes: [] as string[][] })),
    ),
  );
  return tops.filter((t) => (t.Processes ?? []).some((p: string[]) => p.join(" ").includes("sleep 300"))).length;
};

test("docker: after kill -9 of a run with rollouts in flight, every one of its containers is gone within 10 s", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const env = hangingEnv();
  t.after(env.cleanup);
  const { child, stderr } = startRun(env.dir, "docker");
  const pid = child.pid ?? 0;
  t.after(() => child.kill("SIGKILL"));
  try {
    await poll(
      `${IN_FLIGHT} rollouts in flight`,
      async () => {
        if (child.exitCode !== null) throw new Error(`rlenv run exited early: ${stderr()}`);
        return (await busy(pid)) >= IN_FLIGHT;
      },
      120_000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${stderr()}`);
  }
  const before = (await owned(pid)).length;
  child.kill("SIGKILL");
  await once(child, "exit");
  // Nothing in this process touches those containers (no provider here sweeps them): they go by themselves.
  const seconds = await poll("the killed run's containers to go", async () => (await owned(pid)).length === 0, 10_000);
  t.diagnostic(`${before} containers of the killed run gone ${seconds.toFixed(1)} s after kill -9`);
});

test("docker: the sweep removes a container whose owner pid now belongs to another process, and keeps a live owner's", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const other = spawn("sleep", ["60"], { stdio: "ignore" });
  t.after(() => other.kill("SIGKILL"));
  await once(other, "spawn");
  const pid = String(other.pid);
  const make = async (start: string) => {
    const c = await docker.createContainer({
      Image: "rlenv/python:bookworm",
      Cmd: ["sleep", "60"],
      Labels: { [OWNER_LABEL]: pid, [OWNER_START_LABEL]: start, [HOST_LABEL]: os.hostname() },
      HostConfig: { NetworkMode: "none", AutoRemove: true },
    });
    await c.start();
    t.after(() => c.remove({ force: true }).catch(() => {}));
    return c.id;
  };
  const reused = await make("1"); // the pid is alive, but it is not the process that made this container
  const live = await make(processStart(other.pid ?? 0) ?? "");
  await sweepOrphanContainers(docker);
  const left = (await docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${pid}`] } })).map((c) => c.Id);
  assert.ok(!left.includes(reused), "the reused pid's container was kept");
  assert.ok(left.includes(live), "the live owner's container was removed");
});

const isolation = detectIsolation();
test("process: after kill -9 of a run, the next rlenv command of any kind removes its sandbox folders and cgroups", {
  skip: isolation ? false : "neither bubblewrap nor unshare can isolate processes here",
}, async (t) => {
  const env = hangingEnv();
  t.after(env.cleanup);
  const base = defaultSandboxBase();
  const cgroupParents = ["/sys/fs/cgroup/rlenv", "/sys/fs/cgroup/memory/rlenv", "/sys/fs/cgroup/pids/rlenv"];
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const { child, stderr } = startRun(env.dir, "process");
  const pid = child.pid ?? 0;
  t.after(() => child.kill("SIGKILL"));
  const leftovers = () => [base, ...cgroupParents].flatMap(list).filter((n) => n.startsWith(`${pid}-`));
  const folders = () => list(base).filter((n) => n.startsWith(`${pid}-`));
  await poll(
    `${IN_FLIGHT} sandboxes`,
    () => {
      if (child.exitCode !== null) throw new Error(`rlenv run exited early: ${stderr()}`);
      return folders().length >= IN_FLIGHT;
    },
    60_000,
  );
  child.kill("SIGKILL");
  await once(child, "exit");
  const found = leftovers().length;
  assert.ok(found >= IN_FLIGHT, `the killed run left ${found} sandbox folders and cgroups`);
  const r = spawnSync(...rlenvArgv(["--version"]), { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(leftovers(), []);
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { type TestContext, test } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import type { DockerSandbox } from "../../src/core/sandbox/docker/sandbox";
import { killInside } from "../../src/core/sandbox/docker/backstop";
import { descendants } from "../../src/core/sandbox/host-procs";
import { missing } from "../support/services";
import { request } from "./sandbox-contract";

/**
 * A command past its deadline ends as a timeout on docker too, even when it starves the
 * container's agent: the agent shares the container's CPU quota with the command, so a command
 * that keeps the quota busy can delay the agent's own kill and reply without bound. The host
 * kills the command's processes at the deadline instead (or, where it cannot, a `docker exec`
 * from inside), and the agent, its CPU back, answers.
 */
const docker = new Docker();
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const skip =
  missing("docker") ||
  missing("image") ||
  (process.getuid?.() !== 0 ? "stopping the container's agent from the host needs root (it runs as the sandbox user)" : false);

const HOG = "for i in $(seq 20); do (while :; do :; done) & done; wait";
const LOOP = `/bin/sh\0-c\0${HOG}`;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

const inits = new Map<string, number>();

/** The container's processes on this host: its init's descendants (the engine runs here in these tests). */
async function inContainer(s: DockerSandbox, prefix: string): Promise<number[]> {
  // Asked of the engine once per container: polling it would slow the watch on a loaded machine.
  let init = inits.get(s.id);
  if (init === undefined) {
    init = (await docker.getContainer(s.id).inspect()).State.Pid;
    inits.set(s.id, init);
  }
  // The agent is the container's init (pid 1); the commands are its descendants.
  return [init, ...descendants(init)].filter((p) => cmdline(p).startsWith(prefix));
}

/** Runs the hog, waits for its 20 loops, then stops the agent until `gone` says the loops are dead (or the exec settled). */
async function starveAgentWhile(s: DockerSandbox, run: Promise<unknown>, stopOnce?: (agent: number) => Promise<void>) {
  let settled = false;
  void run.finally(() => {
    settled = true;
  });
  let loops: number[] = [];
  while (!settled && loops.length < 20) {
    await new Promise((r) => setTimeout(r, 10));
    loops = await inContainer(s, LOOP);
  }
  // The shell and its subshells share the command line: 20 or more once every loop has forked.
  assert.ok(loops.length >= 20, `the loops ran (${loops.length} seen)`);
  const [agent] = await inContainer(s, "python3\0-I\0-u\0-c\0");
  assert.ok(agent, "the agent runs in the container");
  // The agent gets no CPU at all while the loops run (the limit of a starved agent's share):
  // stopped once the loops started, and let go only once they are gone.
  process.kill(agent, "SIGSTOP");
  try {
    await stopOnce?.(agent);
    while (!settled && (await inContainer(s, LOOP)).length > 0) await new Promise((r) => setTimeout(r, 10));
  } finally {
    process.kill(agent, "SIGCONT");
  }
}

/** A sandbox with a fifth of a CPU for the agent and the 20 busy loops together, reset. */
async function tightSandbox(t: TestContext): Promise<DockerSandbox> {
  const provider = await DockerSandboxProvider.create({ docker, warm: 0 });
  t.after(() => provider.shutdown());
  const s = (await provider.acquire(request({ cpus: 0.2 }, image))) as DockerSandbox;
  await s.reset({});
  return s;
}

/** The sandbox still serves: its agent answers and runs the next command. */
async function stillServes(s: DockerSandbox): Promise<void> {
  const after = await s.exec("echo alive");
  assert.equal(after.stdout, "alive\n", after.reason);
  await s.close();
}

test("docker: a CPU hog under a tight CPU quota ends as a timeout at its deadline, even while the agent gets no CPU", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const s = await tightSandbox(t);
  const running = s.exec(HOG, { timeoutMs: 2000 });
  await starveAgentWhile(s, running);
  const r = await running;
  assert.equal(r.status, "timeout", `${r.status}: ${r.reason ?? ""}`);
  assert.notEqual(r.sandboxLost, true);
  assert.deepEqual(await inContainer(s, LOOP), [], "no busy loop survived");
  await stillServes(s);
});

test("docker: where the host cannot kill them, a kill from inside the container ends every command but the agent", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const s = await tightSandbox(t);
  // No deadline: only the kill from inside ends the loops while the agent is stopped.
  const running = s.exec(HOG);
  const agentPid = s.live.agent.agentPid;
  assert.ok(agentPid, "the agent said its pid when ready");
  await starveAgentWhile(s, running, () => killInside(s.live.container, agentPid, "1000:1000"));
  assert.deepEqual(await inContainer(s, LOOP), [], "no busy loop survived");
  const r = await running;
  assert.notEqual(r.sandboxLost, true, r.reason);
  assert.equal(r.exitCode, 137, `the command was killed: ${r.status} ${r.exitCode} ${r.reason ?? ""}`);
  await stillServes(s);
});

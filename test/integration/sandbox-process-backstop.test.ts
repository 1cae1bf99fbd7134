import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { request } from "./sandbox-contract";

/**
 * A command past its deadline ends as a timeout even when it starves the sandbox's agent: the
 * agent shares the sandbox's CPU quota with the command, so a command that keeps that quota
 * busy can delay the agent's own kill and reply without bound (seen under heavy load). The host
 * kills the command's processes at the deadline instead, and the agent, its CPU back, answers.
 */
const v2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
const skip = !detectIsolation()
  ? "neither bubblewrap nor unshare can isolate processes on this host"
  : process.getuid?.() !== 0 || !(v2 || existsSync("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"))
    ? "a CPU quota needs a writable cgroup (root)"
    : false;

/** Host pids in the sandbox's cgroup whose command line (its words joined by NULs) starts with `prefix`. */
function inSandbox(id: string, prefix: string): number[] {
  const procs = v2 ? `/sys/fs/cgroup/rlenv/${id}/cgroup.procs` : `/sys/fs/cgroup/pids/rlenv/${id}/cgroup.procs`;
  return readFileSync(procs, "utf8")
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(prefix);
      } catch {
        return false;
      }
    });
}

test("a CPU hog under a tight CPU quota ends as a timeout at its deadline, even while the agent gets no CPU", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const provider = new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes") });
  t.after(() => provider.shutdown());
  // A fifth of a CPU for the agent and 20 busy loops together.
  const s = await provider.acquire(request({ cpus: 0.2 }));
  await s.reset({});
  const hog = "for i in $(seq 20); do (while :; do :; done) & done; wait";
  const LOOP = `/bin/sh\0-c\0${hog}`;
  let settled = false;
  const running = s.exec(hog, { timeoutMs: 2000 }).finally(() => {
    settled = true;
  });
  // The agent gets no CPU at all while the loops run (the limit of a starved agent's share; the
  // kernel favours a process that slept, so mere load does not starve it on cue): stopped once
  // the loops started, and let go only once they are gone, which only the host can see to.
  let loops: number[] = [];
  while (!settled && loops.length < 20) {
    await new Promise((r) => setTimeout(r, 10));
    loops = inSandbox(s.id, LOOP);
  }
  // The shell and its subshells share the command line: 20 or more are running (21 once every loop has forked).
  assert.ok(loops.length >= 20, `the loops ran (${loops.length} seen)`);
  const [agent] = inSandbox(s.id, "/usr/bin/python3\0");
  assert.ok(agent, "the agent runs in the sandbox's cgroup");
  process.kill(agent, "SIGSTOP");
  try {
    while (!settled && inSandbox(s.id, LOOP).length > 0) await new Promise((r) => setTimeout(r, 10));
  } finally {
    process.kill(agent, "SIGCONT");
  }
  const r = await running;
  assert.equal(r.status, "timeout", `${r.status}: ${r.reason ?? ""}`);
  assert.notEqual(r.sandboxLost, true);
  assert.deepEqual(inSandbox(s.id, LOOP), [], "no busy loop survived");
  const after = await s.exec("echo alive");
  assert.equal(after.stdout, "alive\n", after.reason);
  await s.close();
});

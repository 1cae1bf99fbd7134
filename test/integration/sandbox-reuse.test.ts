import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import type { Sandbox, SandboxProvider, SandboxRequest } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { request } from "./sandbox-contract";

/**
 * What one rollout leaves in its sandbox must not reach the next rollout that gets a sandbox
 * of the same shape, which both backends reuse under `reset: restore` (docker its container,
 * process its namespaces and agent): files in the workdir (also under a folder made unreadable), /tmp, shared
 * memory (/dev/shm, SysV segments), and processes that detached from the command that made them.
 */
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

const LEAVE = [
  "echo secret > left.txt",
  "mkdir -p locked/deep && echo secret > locked/deep/f && chmod 000 locked",
  "echo secret > /tmp/left.txt",
  "(echo secret > /dev/shm/left 2>/dev/null || true)",
  // A SysV shared memory segment outlives the process that made it.
  `python3 -c 'import ctypes; print(ctypes.CDLL(None).shmget(0x5e17, 4096, 0o1666))'`,
  "(setsid sleep 600 > /dev/null 2>&1 &)",
  "(nohup sh -c 'while :; do echo again > /tmp/again.txt; sleep 0.05; done' > /dev/null 2>&1 &)",
].join("; ");

const LOOK = [
  "ls -A . /tmp",
  "(ls -A /dev/shm 2>/dev/null || true)",
  "echo shm: $(tail -n +2 /proc/sysvipc/shm | wc -l)",
  // The bracket keeps this command's own shell from matching itself.
  "echo procs: $(ps -eo args= | grep -cE '^sleep 600|[w]hile :' || true)",
].join("; ");

async function leaveAndLook(
  provider: SandboxProvider,
  req: SandboxRequest,
  longLived: boolean,
): Promise<{ first: Sandbox; second: Sandbox; seen: string; made: string }> {
  const first = await provider.acquire({ ...req, labels: { "rlenv.rollout": "one" } });
  await first.reset({ "seed.py": "print('one')\n" });
  const made = await first.exec(LEAVE);
  assert.equal(made.status, "ok", made.stderr);
  assert.match(made.stdout.trim(), /^\d+$/, "the SysV segment was made");
  const before = (await first.exec(LOOK)).stdout;
  // A sandbox's commands share its PID and IPC namespaces, so processes and segments outlive
  // the command that made them.
  assert.match(
    before,
    longLived ? /left\.txt[\s\S]*shm: 1\nprocs: [2-9]/ : /left\.txt/,
    `the first rollout did leave things behind: ${before}`,
  );
  await first.close();
  const second = await provider.acquire({ ...req, labels: { "rlenv.rollout": "two" } });
  await second.reset({ "seed.py": "print('two')\n" });
  await new Promise((r) => setTimeout(r, 200)); // a surviving loop would have rewritten /tmp/again.txt by now
  const r = await second.exec(LOOK);
  assert.equal(r.status, "ok", r.stderr);
  return { first, second, seen: r.stdout, made: made.stdout };
}

const backends: Array<{ name: string; skip: string | false; make: () => Promise<SandboxProvider>; reuses: boolean }> = [
  {
    name: "docker",
    skip: missing("docker") || missing("image"),
    make: () => DockerSandboxProvider.create({ docker: new Docker(), warm: 1 }),
    reuses: true,
  },
  {
    name: "process",
    skip: detectIsolation() ? false : "neither bubblewrap nor unshare can isolate processes on this host",
    make: async () => new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes") }),
    reuses: true,
  },
];

for (const b of backends) {
  describe(`sandbox reuse on the ${b.name} backend`, () => {
    test("nothing a rollout leaves behind (files, locked folders, /tmp, shared memory, detached processes) reaches the next one", {
      skip: b.skip,
      timeout: 120_000,
    }, async (t) => {
      const provider = await b.make();
      t.after(() => provider.shutdown());
      const req = { ...request({}, image), reuse: true };
      const { first, second, seen } = await leaveAndLook(provider, req, b.reuses);
      if (b.reuses) assert.equal(second.id, first.id, "the same sandbox, reset in place");
      assert.equal(seen, ".:\nseed.py\n\n/tmp:\nshm: 0\nprocs: 0\n");
      assert.deepEqual(await second.diff(), []);
      assert.equal((await second.exec("python3 seed.py")).stdout, "two\n");
      await second.close();
    });
  });
}

for (const b of backends) {
  test(`${b.name}: a workdir its owner made read-only is given back writable and empty`, { skip: b.skip, timeout: 120_000 }, async (t) => {
    const provider = await b.make();
    t.after(() => provider.shutdown());
    const req = { ...request({}, image), reuse: true };
    const first = await provider.acquire(req);
    await first.reset({});
    // The workdir itself made unwritable by its owner: the reset restores its mode and empties it.
    await first.exec("echo x > f && chmod 500 .");
    await first.close();
    const second = await provider.acquire(req);
    assert.equal(second.id, first.id);
    await second.reset({});
    assert.equal((await second.exec("ls -A; echo y > g && cat g")).stdout, "y\n");
    await second.close();
  });
}

test("process: a sandbox whose request does not allow reuse is never handed on", {
  skip: backends[1]?.skip ?? false,
  timeout: 120_000,
}, async (t) => {
  const provider = new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes") });
  t.after(() => provider.shutdown());
  const req = { ...request({}, image), reuse: false };
  const first = await provider.acquire(req);
  await first.reset({});
  await first.close();
  const second = await provider.acquire(req);
  assert.notEqual(second.id, first.id);
  // The closed handle stays closed for whoever still holds it, even when its sandbox lives on.
  assert.equal((await first.exec("true")).status, "error");
  await second.close();
});

test("process: a handle closed and recycled stays closed for its old holder", {
  skip: backends[1]?.skip ?? false,
  timeout: 120_000,
}, async (t) => {
  const provider = new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes") });
  t.after(() => provider.shutdown());
  const req = { ...request({}, image), reuse: true };
  const first = await provider.acquire(req);
  await first.reset({});
  await first.close();
  const second = await provider.acquire(req);
  assert.equal(second.id, first.id);
  await second.reset({ "mine.txt": "two" });
  const stale = await first.exec("cat mine.txt");
  assert.equal(stale.status, "error");
  assert.match(stale.reason ?? "", /closed/);
  assert.equal((await second.exec("cat mine.txt")).stdout, "two");
  await second.close();
});

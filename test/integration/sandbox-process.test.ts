import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { request, sandboxContract } from "./sandbox-contract";

const baseDir = path.join(os.tmpdir(), "rlenv-sandboxes");
const cgroupParents = ["/sys/fs/cgroup/rlenv", "/sys/fs/cgroup/memory/rlenv", "/sys/fs/cgroup/pids/rlenv"];
const list = (dir: string) => {
  try {
    return readdirSync(dir).map((n) => path.join(dir, n));
  } catch {
    return [];
  }
};

sandboxContract({
  name: "process",
  skip: detectIsolation() ? false : "neither bubblewrap nor unshare can isolate processes on this host",
  make: async () => new ProcessSandboxProvider({ baseDir }),
  leftovers: async (pid) => [baseDir, ...cgroupParents].flatMap(list).filter((p) => path.basename(p).startsWith(`${pid}-`)),
});

test("without bwrap or unshare it refuses, unless --unsafe-no-sandbox, which warns loudly", async (t) => {
  assert.throws(() => new ProcessSandboxProvider({ baseDir, mode: null }), /no sandbox is available.*--unsafe-no-sandbox/s);
  // Docker is named as tried only where it was (--sandbox auto), with why it was not used.
  assert.throws(
    () => new ProcessSandboxProvider({ baseDir, mode: null }),
    (e: Error) => !/Docker does not answer/.test(e.message) && /--sandbox docker/.test(e.message),
  );
  assert.throws(
    () => new ProcessSandboxProvider({ baseDir, mode: null, dockerWhy: "Docker does not answer" }),
    /no sandbox is available: Docker does not answer; .*bubblewrap.*or start Docker/s,
  );
  const warnings: string[] = [];
  const p = new ProcessSandboxProvider({ baseDir, mode: null, unsafeNoSandbox: true, warn: (m) => warnings.push(m) });
  t.after(() => p.shutdown());
  assert.equal(p.mode, "none");
  assert.match(warnings.join(""), /WARNING: --unsafe-no-sandbox.*runs as YOU/s);
  const s = await p.acquire(request());
  await s.writeFiles({ "x.txt": "data\n" });
  const r = await s.exec("cat x.txt && pwd");
  assert.equal(r.stdout, `data\n${s.workdir}\n`);
  await assert.rejects(s.writeFiles({ "/tmp/outside.txt": "1" }), /outside the sandbox workdir/);
  const t0 = performance.now();
  assert.equal((await s.exec("sleep 30", { timeoutMs: 300 })).status, "timeout");
  assert.ok(performance.now() - t0 < 5000);
});

test("the unshare fallback isolates like bwrap where it may run (root)", {
  skip: process.getuid?.() === 0 ? false : "unshare mode needs root",
}, async (t) => {
  const p = new ProcessSandboxProvider({ baseDir, mode: "unshare" });
  t.after(() => p.shutdown());
  const s = await p.acquire(request());
  await s.reset({ "a.py": "print(6 * 7)\n" });
  const r = await s.exec(
    "python3 a.py; id -u; echo x > /etc/rlenv-x || echo refused; echo y > out.txt; python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=1)' 2>/dev/null || echo offline",
  );
  assert.equal(r.stdout, "42\n1000\nrefused\noffline\n", r.stderr);
  assert.deepEqual(
    (await s.diff()).map((d) => [d.path, d.status]),
    [["out.txt", "added"]],
  );
  const oom = await s.exec(["python3", "-c", "b = bytearray(b'x') * (4 << 30)"], { timeoutMs: 30000 });
  assert.equal(oom.status, "oom", JSON.stringify(oom));
});

test("without a writable cgroup, memory is bounded by an address-space rlimit", {
  skip: detectIsolation() ? false : "no isolation here",
}, async (t) => {
  const p = new ProcessSandboxProvider({ baseDir, cgroups: false });
  t.after(() => p.shutdown());
  const s = await p.acquire(request({ memoryBytes: 256 << 20 }));
  const r = await s.exec(["python3", "-c", "b = bytearray(b'x') * (4 << 30)"], { timeoutMs: 30000 });
  assert.equal(r.status, "ok");
  assert.notEqual(r.exitCode, 0);
  assert.match(r.stderr, /MemoryError/);
  assert.equal((await s.exec(["python3", "-c", "print(len(bytearray(64 << 20)))"])).stdout.trim(), String(64 << 20));
});

test("files in and out never follow links the sandboxed code planted to host files", {
  skip: detectIsolation() ? false : "no isolation here",
}, async () => {
  const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs");
  const hostDir = mkdtempSync(path.join(os.tmpdir(), "rlenv-host-"));
  const secret = path.join(hostDir, "secret.txt");
  writeFileSync(secret, "host secret\n");
  const provider = new ProcessSandboxProvider({ baseDir });
  const sb = await provider.acquire(request());
  try {
    // The planted links point at the host path; inside the sandbox they dangle, but the host would follow them.
    const r = await sb.exec(`ln -s ${secret} leak.txt && mkdir -p d && ln -s ${hostDir} d/sub`);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await sb.readFiles(["leak.txt", "d/sub/secret.txt"]), { "leak.txt": null, "d/sub/secret.txt": null });
    await sb.writeFiles({ "leak.txt": "overwritten\n", "d/sub/secret.txt": "overwritten\n" });
    assert.equal(readFileSync(secret, "utf8"), "host secret\n");
    const back = await sb.readFiles(["leak.txt", "d/sub/secret.txt"]);
    assert.equal(back["leak.txt"]?.toString(), "overwritten\n");
    assert.equal(back["d/sub/secret.txt"]?.toString(), "overwritten\n");
  } finally {
    await sb.close();
    await provider.shutdown();
  }
});

test("prewarm starts sandboxes ahead (agents up, nothing run in them), hands them out and keeps that many; shutdown leaves nothing", {
  skip: detectIsolation() ? false : "no isolation here",
}, async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "rlenv-warm-"));
  const provider = new ProcessSandboxProvider({ baseDir: base });
  try {
    await provider.prewarm(request(), 2);
    const started = readdirSync(base);
    assert.equal(started.length, 2);
    const sb = await provider.acquire(request());
    assert.ok(started.includes(sb.id), "the acquire got a warm sandbox");
    await sb.reset({ "a.txt": "seed\n" });
    assert.equal((await sb.exec("cat a.txt; ls -A /tmp | wc -l")).stdout, "seed\n0\n");
    // Another of the same shape is being started in its place; a different shape is started on demand.
    await provider.prewarm(request(), 2);
    assert.equal(readdirSync(base).length, 3);
    const other = await provider.acquire(request({ pids: 99 }));
    assert.ok(!started.includes(other.id));
    await sb.close();
  } finally {
    await provider.shutdown();
  }
  assert.deepEqual(readdirSync(base), []);
});

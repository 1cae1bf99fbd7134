/**
 * Run by host-boundary.test.ts as a child process started with a root-only file open on fd 40
 * (not close-on-exec, as a launcher may leave one): starts a sandbox of the backend named in
 * argv[2] (base folder argv[3]) and tries, from inside, to read that file through every
 * descriptor any process of the sandbox holds. Prints what it found as one JSON line.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../../src/core/sandbox/docker/provider";
import { ProcessSandboxProvider } from "../../../src/core/sandbox/process/provider";
import type { SandboxProvider } from "../../../src/core/model/sandbox";

const SCAN = `
import json, os, stat
found = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        fds = os.listdir("/proc/%s/fd" % pid)
    except OSError:
        continue
    for fd in fds:
        try:
            # Non-blocking, regular files only: a pipe's read end would wait forever.
            h = os.open("/proc/%s/fd/%s" % (pid, fd), os.O_RDONLY | os.O_NONBLOCK)
            try:
                if stat.S_ISREG(os.fstat(h).st_mode) and b"ROOT-ONLY-SECRET" in os.pread(h, 4096, 0):
                    found.append("/proc/%s/fd/%s" % (pid, fd))
            finally:
                os.close(h)
        except OSError:
            pass
print(json.dumps(found))
`;

/** Host processes of the sandbox (its cgroup names its id: the isolating ones and all inside) that hold the secret file open. */
function heldOnHost(id: string): string[] {
  const held: string[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      if (!readFileSync(`/proc/${pid}/cgroup`, "utf8").includes(id)) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`))
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === process.env.SECRET_PATH) held.push(`${pid}/fd/${fd}`);
    } catch {}
  }
  return held;
}

async function main(): Promise<void> {
  const [backend, base] = process.argv.slice(2);
  const provider: SandboxProvider =
    backend === "docker"
      ? await DockerSandboxProvider.create({ docker: new Docker(), warm: 0 })
      : new ProcessSandboxProvider({ mode: backend as "bwrap" | "unshare", baseDir: base ?? "" });
  try {
    const sb = await provider.acquire({
      ...(backend === "docker" ? { image: process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm" } : {}),
      workdir: "/workspace",
      user: "1000:1000",
      limits: { cpus: 1, memoryBytes: 256 << 20, pids: 64, outputBytes: 100_000, tmpfsBytes: 16 << 20 },
    });
    try {
      await sb.reset({});
      const r = await sb.exec(["python3", "-c", SCAN], { timeoutMs: 20_000 });
      const found = r.status === "ok" ? (JSON.parse(r.stdout) as string[]) : [r.stderr];
      process.stdout.write(`${JSON.stringify({ status: r.status, found, held: heldOnHost(sb.id) })}\n`);
    } finally {
      await sb.close();
    }
  } finally {
    await provider.shutdown();
  }
}

void main();

/**
 * The behaviour every sandbox backend must show, as one suite run against each backend
 * (sandbox-process.test.ts, sandbox-docker.test.ts) on the real isolation mechanism.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { SandboxProvider, SandboxRequest } from "../../src/core/model/sandbox";

export interface BackendUnderTest {
  name: "docker" | "process";
  /** Skip reason, or false. */
  skip: string | false;
  make(): Promise<SandboxProvider>;
  /** Resources (containers, folders) that belong to sandboxes of owner `pid`. */
  leftovers(pid: number): Promise<string[]>;
  image?: string;
}

export function request(over: Partial<SandboxRequest["limits"]> = {}, image?: string): SandboxRequest {
  return {
    ...(image ? { image } : {}),
    workdir: "/workspace",
    user: "1000:1000",
    limits: { cpus: 1, memoryBytes: 256 << 20, pids: 64, outputBytes: 1_000_000, tmpfsBytes: 64 << 20, ...over },
  };
}

export function sandboxContract(b: BackendUnderTest): void {
  describe(`${b.name} sandbox`, { skip: b.skip }, () => {
    let provider: SandboxProvider | undefined;
    const get = async () => {
      provider ??= await b.make();
      return provider;
    };
    after(async () => provider?.shutdown());

    test("runs commands in the workdir as a non-root user, with files in and out and a diff against the seed", async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        await s.reset({ "a.py": "print('hi')\n", "keep.txt": "same\n", "gone.txt": "x\n" });
        const r = await s.exec("python3 a.py && id -u && pwd && echo new > b.txt && rm gone.txt && echo more >> a.py");
        assert.equal(r.status, "ok", r.stderr);
        assert.equal(r.exitCode, 0);
        assert.deepEqual(r.stdout.trim().split("\n"), ["hi", "1000", s.workdir]);
        const files = await s.readFiles(["b.txt", "missing.txt"]);
        assert.equal(files["b.txt"]?.toString(), "new\n");
        assert.equal(files["missing.txt"], null);
        const d = await s.diff();
        assert.deepEqual(
          d.map((x) => [x.path, x.status]),
          [
            ["a.py", "modified"],
            ["b.txt", "added"],
            ["gone.txt", "deleted"],
          ],
        );
        const stdin = await s.exec(["python3", "-c", "import sys; print(sys.stdin.read().upper())"], { stdin: "abc", env: { X: "1" } });
        assert.equal(stdin.stdout.trim(), "ABC");
        const failing = await s.exec("exit 3");
        assert.equal(failing.status, "ok");
        assert.equal(failing.exitCode, 3);
        await s.reset({ "only.txt": "1" });
        const ls = await s.exec("ls -A");
        assert.equal(ls.stdout.trim(), "only.txt");
      } finally {
        await s.close();
      }
    });

    test("a timeout kills an infinite loop and its children within 1 s of the deadline", async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        const r = await s.exec("sleep 300 & while :; do :; done", { timeoutMs: 1000 });
        assert.equal(r.status, "timeout");
        assert.match(r.reason ?? "", /timeout/);
        assert.ok(r.durationMs < 2000, `took ${r.durationMs} ms for a 1000 ms timeout`);
        const left = await s.exec("ps -eo comm | grep -c '^sleep' || true");
        assert.equal(left.stdout.trim(), "0", "the background sleep survived the timeout");
      } finally {
        await s.close();
      }
    });

    test("an AbortSignal cancels a running command and reports it killed", async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 300);
        const r = await s.exec("sleep 30", { signal: ac.signal });
        assert.equal(r.status, "killed");
        assert.ok(r.durationMs < 5000, `cancel took ${r.durationMs} ms`);
        assert.equal((await s.exec("echo next")).stdout, "next\n");
      } finally {
        await s.close();
      }
    });

    test("a fork bomb is contained by the pids limit and the sandbox still answers", async () => {
      const s = await (await get()).acquire(request({ pids: 64 }, b.image));
      try {
        const r = await s.exec("f(){ f | f & }; f; sleep 2", { timeoutMs: 8000 });
        const said = `${r.reason ?? ""} ${r.stderr}`;
        assert.match(said, /pids limit|fork|Resource temporarily unavailable/i, JSON.stringify(r).slice(0, 500));
        // The bomb's background shells outlive the command (as with `docker exec`) and die
        // out as their forks fail; until then a new command may itself be refused a fork.
        // The sandbox must answer again once they are gone, without a reset.
        let alive = await s.exec("echo alive", { timeoutMs: 10000 });
        for (let i = 0; i < 20 && alive.stdout.trim() !== "alive"; i++) {
          await new Promise((r) => setTimeout(r, 500));
          alive = await s.exec("echo alive", { timeoutMs: 10000 });
        }
        assert.equal(alive.stdout.trim(), "alive", JSON.stringify(alive).slice(0, 500));
      } finally {
        await s.close();
      }
    });

    test("a 4 GiB allocation is OOM-killed and reported as such", async () => {
      const s = await (await get()).acquire(request({ memoryBytes: 256 << 20 }, b.image));
      try {
        const r = await s.exec(["python3", "-c", "b = bytearray(b'x') * (4 << 30)"], { timeoutMs: 30000 });
        assert.equal(r.status, "oom", JSON.stringify(r).slice(0, 500));
        assert.match(r.reason ?? "", /out of memory/);
        assert.equal((await s.exec("echo after")).stdout.trim(), "after");
      } finally {
        await s.close();
      }
    });

    test("many processes smaller than the agent filling the memory limit: the kill falls on them, never the agent", async () => {
      // Each holds ~4 MB more than a bare interpreter, under the agent's own size: the largest process
      // in the sandbox was the agent, the kernel killed it, and the sandbox read as lost (infra).
      const s = await (await get()).acquire(request({ memoryBytes: 256 << 20, pids: 512 }, b.image));
      try {
        // Commands go first: the most the kernel's score allows, raised without privilege.
        assert.equal((await s.exec(["cat", "/proc/self/oom_score_adj"])).stdout.trim(), "1000");
        const hogs = `for i in $(seq 150); do python3 -c "import time; x = bytearray(4 << 20); time.sleep(6)" & done; wait; echo waited`;
        const r = await s.exec(["bash", "-c", hogs], { timeoutMs: 90_000 });
        assert.notEqual(r.status, "error", JSON.stringify(r).slice(0, 500));
        assert.equal((await s.exec("echo after")).stdout.trim(), "after");
        assert.equal(await s.probe?.(5000), null);
      } finally {
        await s.close();
      }
    });

    test("has no network: connecting to the host's loopback or any address fails", async () => {
      const server = createServer((c) => c.end("hello"));
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      const port = (server.address() as { port: number }).port;
      const s = await (await get()).acquire(request({}, b.image));
      try {
        const probe = `
import socket
for host, port in [("127.0.0.1", ${port}), ("1.1.1.1", 53), ("10.0.0.1", 80)]:
    try:
        socket.create_connection((host, port), timeout=2).recv(5)
        print("CONNECTED", host)
    except OSError as e:
        print("refused", host, e.errno)
`;
        const r = await s.exec(["python3", "-c", probe], { timeoutMs: 15000 });
        assert.equal(r.status, "ok", r.stderr);
        assert.doesNotMatch(r.stdout, /CONNECTED/);
        assert.equal(r.stdout.trim().split("\n").length, 3, r.stdout);
      } finally {
        await s.close();
        server.close();
      }
    });

    test("writes outside the workdir and /tmp are refused", async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        const r = await s.exec(
          'for p in /etc/rlenv-x /usr/rlenv-x /rlenv-x /var/rlenv-x /home/rlenv-x; do (echo x > "$p") 2>/dev/null && echo "WROTE $p"; done; echo ok > in.txt && echo ok > /tmp/t.txt && echo inside',
        );
        assert.doesNotMatch(r.stdout, /WROTE/);
        assert.match(r.stdout, /inside/);
        await assert.rejects(s.writeFiles({ "../escape.txt": "x" }), /outside/);
      } finally {
        await s.close();
      }
    });

    // A timeout of its own: what this guards against is a read that waits forever.
    test("a FIFO or a link to a host file planted in the workdir: reads and the diff refuse them at once, never hang or leak", {
      timeout: 60_000,
    }, async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        await s.reset({ "a.txt": "seed\n" });
        const r = await s.exec("mkfifo fifo && ln -s /etc/hostname leak && mkdir d && mkfifo d/f && echo new > b.txt");
        assert.equal(r.exitCode, 0, r.stderr);
        const read = await s.readFiles(["fifo", "leak", "d/f", "b.txt"]);
        assert.deepEqual(Object.fromEntries(Object.entries(read).map(([k, v]) => [k, v === null ? null : v.toString()])), {
          fifo: null,
          leak: null,
          "d/f": null,
          "b.txt": "new\n",
        });
        assert.deepEqual(
          (await s.diff()).map((d) => d.path),
          ["b.txt"],
        );
      } finally {
        await s.close();
      }
    });

    test("a file written past the file size limit stops its writer with the reason; smaller files and the sandbox go on", async () => {
      const s = await (await get()).acquire(request({ fileBytes: 1 << 20 }, b.image));
      try {
        const big = await s.exec("head -c 3000000 /dev/zero > big.bin");
        assert.equal(big.status, "ok", big.reason);
        assert.equal(big.exitCode, 153, JSON.stringify(big));
        assert.match(big.reason ?? "", /file size limit exceeded.*1048576 byte/);
        assert.equal((await s.readFiles(["big.bin"]))["big.bin"]?.length, 1 << 20);
        // Python ignores SIGXFSZ: its write fails with EFBIG instead, and /tmp is held to the same limit.
        const py = await s.exec(["python3", "-c", "open('/tmp/t.bin','wb').write(b'x' * 2000000)"]);
        assert.deepEqual([py.exitCode, /File too large/.test(py.stderr)], [1, true], JSON.stringify(py));
        const small = await s.exec("head -c 500000 /dev/zero > small.bin && wc -c < small.bin");
        assert.deepEqual([small.exitCode, small.stdout.trim(), small.reason], [0, "500000", undefined]);
      } finally {
        await s.close();
      }
    });

    test("10 MB of output is capped and marked", async () => {
      const s = await (await get()).acquire(request({}, b.image));
      try {
        const r = await s.exec("head -c 10000000 /dev/zero | tr '\\0' a", { maxOutputBytes: 100_000 });
        assert.equal(r.status, "ok");
        assert.equal(r.truncated?.originalBytes, 10_000_000);
        assert.ok(r.stdout.startsWith("a".repeat(100_000)));
        assert.match(r.stdout, /output truncated/);
        assert.ok(r.stdout.length < 100_200);
      } finally {
        await s.close();
      }
    });

    test("after a SIGKILL of the owning process, a new start removes its orphans", async () => {
      const fixture = path.join(__dirname, "sandbox-owner-fixture.ts");
      const child = spawn(process.execPath, ["--import", "tsx", fixture, b.name, b.image ?? ""], { stdio: ["ignore", "pipe", "inherit"] });
      let said = "";
      child.stdout.on("data", (c: Buffer) => {
        said += c.toString();
      });
      while (!said.includes("ready")) {
        if (child.exitCode !== null) assert.fail(`owner fixture exited early: ${said}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const pid = child.pid ?? 0;
      assert.ok((await b.leftovers(pid)).length >= 2, "the fixture's sandboxes are not there");
      child.kill("SIGKILL");
      await once(child, "exit");
      const fresh = await b.make();
      try {
        assert.deepEqual(await b.leftovers(pid), []);
      } finally {
        await fresh.shutdown();
      }
    });

    test("200 sandboxes acquired and released concurrently leak nothing", async () => {
      await provider?.shutdown();
      provider = undefined;
      const before = await b.leftovers(process.pid);
      const p = await get();
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const s = await p.acquire(request({}, b.image));
          try {
            return (await s.exec(`echo ${i}`)).stdout.trim();
          } finally {
            await s.close();
          }
        }),
      );
      assert.deepEqual(
        results,
        Array.from({ length: 200 }, (_, i) => String(i)),
      );
      await p.shutdown();
      provider = undefined;
      assert.deepEqual(await b.leftovers(process.pid), before);
    });
  });
}

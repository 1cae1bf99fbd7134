import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { ProcessSandboxProvider } from "../../../src/core/sandbox/process/provider";
import { backends, redteamRequest, withSandbox } from "./backends";

/**
 * Class 4, the host boundary, as a process inside the sandbox tries it: a setuid program left
 * in the workdir for the host to run, folders that honour setuid bits or device nodes, a
 * descriptor the host process inherited, and a disk filled past any bound.
 */
const MOUNTS = `
import json
flags = {}
for line in open("/proc/self/mountinfo"):
    f = line.split()
    if f[4] in ("/workspace", "/tmp"):
        flags[f[4]] = f[5].split(",")
print(json.dumps(flags))
`;

const FILL = `
import errno, os
try:
    for i in range(400):
        with open("/workspace/fill-%d" % i, "wb") as f:
            f.write(os.urandom(1 << 20))
    print("wrote 400 MiB")
except OSError as e:
    print("stopped: %s" % errno.errorcode.get(e.errno, e.errno))
`;

for (const b of backends()) {
  describe(`${b.name}: the host boundary`, { skip: b.skip }, () => {
    test("the workdir and /tmp are mounted nosuid,nodev", async () => {
      await withSandbox(b, async (sb) => {
        const r = await sb.exec(["python3", "-c", MOUNTS], { timeoutMs: 20_000 });
        const flags = JSON.parse(r.stdout) as Record<string, string[]>;
        for (const m of ["/workspace", "/tmp"]) {
          assert.ok(flags[m], `${m} is not a mount of its own: ${r.stdout}`);
          assert.ok(flags[m]?.includes("nosuid") && flags[m]?.includes("nodev"), `${m}: ${flags[m]?.join(",")}`);
        }
      });
    });

    test("a setuid program made in the workdir is neither root's on the host nor runnable by another host user", {
      skip: b.name === "docker" ? "the engine's volumes are root's own folder; no-new-privileges holds inside" : false,
    }, async () => {
      const provider = (await b.provider()) as ProcessSandboxProvider;
      await withSandbox(b, async (sb) => {
        const r = await sb.exec("cp /usr/bin/id ./suid && chmod 4755 ./suid", { timeoutMs: 20_000 });
        assert.equal(r.exitCode, 0, r.stderr);
        const onHost = path.join(provider.baseDir, sb.id, "work", "suid");
        assert.notEqual(statSync(onHost).uid, 0, "the sandbox user's file is root's on the host");
        const nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"];
        const asNobody = spawnSync("setpriv", [...nobody, onHost, "-u"], { encoding: "utf8" });
        assert.ok(
          asNobody.status !== 0 || asNobody.stdout.trim() === "65534",
          `another host user ran it as euid ${asNobody.stdout.trim()}`,
        );
      });
    });

    test("a root-only file the host process inherited on fd 40 cannot be read from inside, nor is it held by the sandbox", async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-redteam-secret-"));
      const secret = path.join(dir, "secret");
      writeFileSync(secret, "ROOT-ONLY-SECRET\n");
      chmodSync(secret, 0o600);
      const fd = openSync(secret, "r");
      const base = mkdtempSync(path.join(os.tmpdir(), "rlenv-redteam-fd-"));
      try {
        const stdio: Array<"pipe" | "ignore" | "inherit" | number> = ["ignore", "pipe", "inherit"];
        for (let i = 3; i < 40; i++) stdio.push("ignore");
        stdio.push(fd);
        const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "inherited-fd-child.ts"), b.name, base], {
          stdio,
          env: { ...process.env, SECRET_PATH: secret },
        });
        let out = "";
        child.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
        });
        const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
        assert.equal(code, 0, out);
        const seen = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { status: string; found: string[]; held: string[] };
        assert.equal(seen.status, "ok");
        assert.deepEqual(seen.found, [], "the sandbox read the host's root-only file");
        assert.deepEqual(seen.held, [], "a process of the sandbox holds the host's root-only file");
      } finally {
        closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
        rmSync(base, { recursive: true, force: true });
      }
    });

    test("a disk filled past sandbox.limits.disk stops the writer with ENOSPC; the sandbox answers on", async () => {
      const req = redteamRequest(b, {}, { diskBytes: 64 << 20, memoryBytes: 512 << 20 });
      await withSandbox(
        b,
        async (sb) => {
          const r = await sb.exec(["python3", "-c", FILL], { timeoutMs: 60_000 });
          assert.equal(r.status, "ok", JSON.stringify(r));
          assert.equal(r.stdout.trim(), "stopped: ENOSPC");
          assert.equal(await sb.probe?.(5000), null);
          const after = await sb.exec("rm -f fill-* && echo fine", { timeoutMs: 20_000 });
          assert.equal(after.stdout.trim(), "fine");
        },
        req,
      );
    });
  });
}

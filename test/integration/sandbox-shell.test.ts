import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import type { Sandbox, SandboxProvider, SandboxShell } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { request } from "./sandbox-contract";

/** Everything a shell printed, and a way to wait (by content, not by time) for a pattern in it. */
function collect(sh: SandboxShell): { text: () => string; until: (re: RegExp) => Promise<string>; exit: Promise<number | null> } {
  let buf = "";
  const waiters: { re: RegExp; resolve: (s: string) => void }[] = [];
  sh.onData((d) => {
    buf += d.toString("utf8");
    for (const w of [...waiters]) {
      if (w.re.test(buf)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(buf);
      }
    }
  });
  const exit = new Promise<number | null>((resolve) => sh.onExit(resolve));
  return {
    text: () => buf,
    until: (re) => (re.test(buf) ? Promise.resolve(buf) : new Promise((resolve) => waiters.push({ re, resolve }))),
    exit,
  };
}

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const backends: { name: string; skip: string | false; make: () => Promise<SandboxProvider>; image?: string }[] = [
  {
    name: "docker",
    skip: missing("docker") || missing("image"),
    make: () => DockerSandboxProvider.create({ docker: new Docker(), warm: 0 }),
    image,
  },
  {
    name: "process",
    skip: detectIsolation() ? false : "neither bubblewrap nor unshare can isolate processes on this host",
    make: async () => new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes") }),
  },
  {
    name: "process (unshare)",
    skip: process.getuid?.() === 0 ? false : "unshare mode needs root",
    make: async () => new ProcessSandboxProvider({ baseDir: path.join(os.tmpdir(), "rlenv-sandboxes"), mode: "unshare" }),
  },
];

for (const b of backends) {
  describe(`${b.name} sandbox shell`, { skip: b.skip }, () => {
    const open = async (t: { after: (fn: () => Promise<void>) => void }): Promise<Sandbox> => {
      const provider = await b.make();
      t.after(() => provider.shutdown());
      const s = await provider.acquire(request({}, b.image));
      await s.reset({ "seed.txt": "from the rollout\n" });
      return s;
    };

    test("runs commands on a terminal in the workdir, as the sandbox user, and reports the exit code", async (t) => {
      const s = await open(t);
      assert.ok(s.shell, "the backend offers a shell");
      const sh = await s.shell({ cols: 100, rows: 30 });
      const out = collect(sh);
      sh.write("test -t 0 && echo TTY-YES; tty; pwd; id -u; cat seed.txt; stty size; echo hi; exit 3\n");
      assert.equal(await out.exit, 3, out.text());
      const text = out.text();
      assert.match(text, /TTY-YES/);
      assert.match(text, /\/dev\/pts\/\d+/);
      assert.match(text, new RegExp(`^${s.workdir}\\r?$`, "m"));
      assert.match(text, /^1000\r?$/m);
      assert.match(text, /from the rollout/);
      assert.match(text, /^30 100\r?$/m);
      assert.match(text, /^hi\r?$/m);
      assert.equal((await s.exec("echo still up")).stdout, "still up\n", "the sandbox outlives its shell");
    });

    test("resize changes the terminal's size", async (t) => {
      const s = await open(t);
      const sh = await (s.shell as NonNullable<Sandbox["shell"]>)({ cols: 80, rows: 24 });
      const out = collect(sh);
      sh.write("stty size; echo MARK-1\n");
      await out.until(/^MARK-1\r?$/m);
      sh.resize(132, 43);
      // A resize travels on another channel than input: poll by content until the new size shows.
      for (let i = 0; i < 50 && !/^43 132\r?$/m.test(out.text()); i++) {
        sh.write(`stty size; echo MARK-P${i}\n`);
        await out.until(new RegExp(`^MARK-P${i}\\r?$`, "m"));
      }
      assert.match(out.text(), /^24 80\r?$/m);
      assert.match(out.text(), /^43 132\r?$/m);
      await sh.close();
    });

    test("close kills the shell and what it runs; the sandbox stays up", async (t) => {
      const s = await open(t);
      const sh = await (s.shell as NonNullable<Sandbox["shell"]>)();
      const out = collect(sh);
      sh.write("sleep 1000 & echo BG-$!; sleep 1001\n");
      await out.until(/BG-\d+/);
      // The foreground sleep has started once `ps` inside the sandbox lists it.
      for (let i = 0; i < 100 && !(await s.exec("ps -eo args")).stdout.includes("sleep 1001"); i++)
        await new Promise((r) => setImmediate(r));
      await sh.close();
      assert.equal(await out.exit, null, "a killed shell has no exit code");
      const ps = (await s.exec("ps -eo args")).stdout;
      assert.doesNotMatch(ps, /sleep 100[01]/, ps);
      assert.equal((await s.exec("cat seed.txt")).stdout, "from the rollout\n");
    });
  });
}

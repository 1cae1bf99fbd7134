import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { stopLeftovers } from "../../../src/core/reward/stop-leftovers";
import type { Sandbox } from "../../../src/core/model/sandbox";
import { backends, LIVE_THREADS, redteamRequest, withSandbox } from "./backends";

/**
 * Class 2, the clean slate: a command leaves behind a process the wipe used to skip, a
 * double-forked `setsid` process whose main thread exited alone (it reads as a zombie in
 * /proc/<pid>/stat) while its other thread rewrites the hidden test again and again. Before a
 * verifier runs (stopLeftovers) and before a sandbox is handed to the next rollout (reuse),
 * no thread of it may be left.
 */
const SURVIVOR = String.raw`
import ctypes, os, threading, time
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
def rewrite():
    while True:
        for path in ("/workspace/test_hidden.py", "/tmp/test_hidden.py"):
            try:
                with open(path, "w") as f:
                    f.write("def test_ok():\n    assert True\n")
            except OSError:
                pass
        time.sleep(0.005)
threading.Thread(target=rewrite).start()
time.sleep(0.05)
ctypes.CDLL(None).syscall(60, 0)  # SYS_exit: the main thread alone ends; the process lives on
`;

async function plant(sb: Sandbox): Promise<void> {
  const r = await sb.exec(`python3 -c '${SURVIVOR.replace(/'/g, `'\\''`)}' </dev/null >/dev/null 2>&1`, { timeoutMs: 20_000 });
  assert.equal(r.status, "ok", JSON.stringify(r));
  const live = await liveThreads(sb);
  assert.ok(live.length > 0, "the survivor did not start");
}

async function liveThreads(sb: Sandbox): Promise<string[]> {
  const r = await sb.exec(["python3", "-c", LIVE_THREADS], { timeoutMs: 20_000 });
  assert.equal(r.status, "ok", JSON.stringify(r));
  return JSON.parse(r.stdout) as string[];
}

for (const b of backends()) {
  describe(`${b.name}: the clean slate`, { skip: b.skip }, () => {
    test("before judging: a setsid process whose main thread exited is stopped, every thread of it", async () => {
      await withSandbox(b, async (sb) => {
        await plant(sb);
        await stopLeftovers(sb);
        assert.deepEqual(await liveThreads(sb), [], "a thread of the agent's left running process survived");
      });
    });

    test("before reuse: the next holder of a recycled sandbox finds nothing of the last one running", async () => {
      const provider = await b.provider();
      const req = redteamRequest(b, { reuse: true });
      const first = await provider.acquire(req);
      const id = first.id;
      await first.reset({});
      await plant(first);
      await first.close();
      const next = await provider.acquire(req);
      try {
        assert.equal(next.id, id, "the sandbox was not reused, so this does not test reuse");
        await next.reset({});
        assert.deepEqual(await liveThreads(next), []);
        const files = await next.exec("ls -A /workspace /tmp", { timeoutMs: 20_000 });
        assert.doesNotMatch(files.stdout, /test_hidden/);
      } finally {
        await next.close();
      }
    });
  });
}

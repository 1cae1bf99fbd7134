import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { currentOwner, ownerAlive, ownerOfName, ownerPrefix, processStart } from "../../src/core/util/owner";
import { sweepProcessOrphans } from "../../src/core/sandbox/process/sweep";

const hasProc = existsSync("/proc/self/stat");

test("sandbox names carry the owner's pid and start time, and older pid-only names still parse", () => {
  const me = currentOwner();
  assert.equal(me.pid, process.pid);
  assert.deepEqual(ownerOfName(`${ownerPrefix(me)}ab12cd34`), me);
  assert.deepEqual(ownerOfName("4242-ab12cd34"), { pid: 4242, start: null });
  assert.deepEqual(ownerOfName("4242-123456-ab12cd34"), { pid: 4242, start: "123456" });
  assert.equal(ownerOfName("rlenv"), null);
  assert.equal(ownerOfName("abc-def"), null);
});

test("a live pid with another start time is a different process: its owner is gone (pid reuse)", {
  skip: hasProc ? false : "no /proc here",
}, async (t) => {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  t.after(() => child.kill("SIGKILL"));
  await once(child, "spawn");
  const pid = child.pid ?? 0;
  const start = processStart(pid);
  assert.ok(start, "the child's start time is readable");
  assert.equal(ownerAlive({ pid, start }), true);
  assert.equal(ownerAlive({ pid, start: String(Number(start) + 1) }), false);
  assert.equal(ownerAlive({ pid, start: null }), true);
  child.kill("SIGKILL");
  await once(child, "exit");
  assert.equal(ownerAlive({ pid, start }), false);
});

test("the process sweep removes folders of dead owners and of reused pids, and keeps live owners'", {
  skip: hasProc ? false : "no /proc here",
}, async (t) => {
  const base = mkdtempSync(path.join(os.tmpdir(), "rlenv-sweep-"));
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  t.after(() => {
    child.kill("SIGKILL");
    rmSync(base, { recursive: true, force: true });
  });
  await once(child, "spawn");
  const pid = child.pid ?? 0;
  const dead = spawn("true", { stdio: "ignore" });
  await once(dead, "exit");
  const names = {
    mine: `${ownerPrefix()}aaaa0001`,
    liveChild: `${pid}-${processStart(pid)}-aaaa0002`,
    reusedPid: `${pid}-1-aaaa0003`, // the child's pid, but a start time it never had
    deadOld: `${dead.pid}-aaaa0004`, // the older pid-only form
    notOurs: "scratch",
  };
  for (const n of Object.values(names)) mkdirSync(path.join(base, n, "work"), { recursive: true });
  assert.equal(sweepProcessOrphans(base) >= 2, true);
  const left = (n: string) => existsSync(path.join(base, n));
  assert.equal(left(names.mine), true);
  assert.equal(left(names.liveChild), true);
  assert.equal(left(names.notOurs), true);
  assert.equal(left(names.reusedPid), false);
  assert.equal(left(names.deadOld), false);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { POLL_GIVE_UP_MS, PollFailures, pollSleep } from "../../src/core/remote/executors/slurm-poll";

test("PollFailures logs the first failure of a run, throws once the run outlasts the bound, and starts again after a success", (t) => {
  let now = 1_000_000;
  t.mock.method(Date, "now", () => now);
  const log: string[] = [];
  const f = new PollFailures();
  f.failed(new Error("HTTP 500"), (l) => log.push(l));
  now += POLL_GIVE_UP_MS;
  f.failed(new Error("HTTP 500"), (l) => log.push(l));
  assert.deepEqual(log, ["reading the shards' states from Slurm failed (HTTP 500): trying again"]);
  now += 1;
  assert.throws(() => f.failed(new Error("timed out"), (l) => log.push(l)), /Slurm has not answered for 300 s: timed out/);
  f.ok();
  f.failed(new Error("again"), (l) => log.push(l));
  assert.equal(log.length, 2);
});

test("pollSleep ends early on abort, resolving, and leaves no listener on the signal", { timeout: 10_000 }, async (t) => {
  const ac = new AbortController();
  const add = t.mock.method(ac.signal, "addEventListener");
  const remove = t.mock.method(ac.signal, "removeEventListener");
  await pollSleep(1, ac.signal);
  assert.deepEqual([add.mock.callCount(), remove.mock.callCount()], [1, 1]);
  // With the clock frozen the 60 s timer never fires: only the abort can end this wait.
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const waiting = pollSleep(60_000, ac.signal);
  ac.abort();
  await waiting;
});

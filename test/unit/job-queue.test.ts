import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { JobEvent } from "../../src/core/remote/api";
import { JobEventBatcher } from "../../src/core/remote/jobs/job-event-batcher";
import { type ActiveJob, JobQueue } from "../../src/core/remote/jobs/job-queue";
import { JobJournal } from "../../src/core/remote/jobs/journal";

test("the job queue runs at most its capacity, in order, and starts the next when one ends", async () => {
  const release = new Map<string, () => void>();
  const started: string[] = [];
  const q = new JobQueue(2, (id: string, _act: ActiveJob) => {
    started.push(id);
    return new Promise<void>((resolve) => release.set(id, resolve));
  });
  for (const id of ["a", "b", "c", "d"]) q.enqueue(id);
  q.enqueue("a");
  q.pump();
  assert.deepEqual(started, ["a", "b"]);
  assert.equal(q.runningCount, 2);
  assert.equal(q.waitingCount, 2);
  assert.equal(q.remove("d"), true, "a waiting job can be taken out");
  assert.equal(q.remove("a"), false, "a running one is not waiting");
  release.get("a")?.();
  await q.active("a")?.done;
  assert.deepEqual(started, ["a", "b", "c"]);
  assert.equal(q.active("a"), undefined);
  assert.deepEqual([...q.runningIds()].sort(), ["b", "c"]);
  release.get("b")?.();
  release.get("c")?.();
  await Promise.all(q.allActive().map((a) => a.done));
  assert.equal(q.runningCount, 0);
  assert.deepEqual(started, ["a", "b", "c"], "the removed job never ran");
});

test("the event batcher journals one turn's events in one write per job, and delivers them only once journalled", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-batcher-"));
  const journal = new JobJournal(dir);
  for (const id of ["j1", "j2"]) mkdirSync(journal.jobDir(id), { recursive: true });
  const writes: Array<[string, number]> = [];
  const appendAll = journal.appendAll.bind(journal);
  journal.appendAll = (id, inputs) => {
    writes.push([id, inputs.length]);
    return appendAll(id, inputs);
  };
  const heard: Array<[string, JobEvent]> = [];
  const batcher = new JobEventBatcher(journal, (id, ev) => {
    assert.ok(
      journal.eventsAfter(id, 0).some((e) => e.id === ev.id),
      "an event is delivered after it is in the journal",
    );
    heard.push([id, ev]);
  });
  try {
    batcher.add("j1", { type: "log", line: "one" });
    batcher.add("j2", { type: "log", line: "two" });
    batcher.add("j1", { type: "log", line: "three" });
    assert.equal(heard.length, 0, "nothing is sent within the turn");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(writes, [
      ["j1", 2],
      ["j2", 1],
    ]);
    assert.deepEqual(
      heard.map(([id, e]) => [id, e.type === "log" ? e.line : ""]),
      [
        ["j1", "one"],
        ["j1", "three"],
        ["j2", "two"],
      ],
    );
    batcher.add("j1", { type: "log", line: "four" });
    batcher.flush();
    assert.equal(heard.length, 4, "flush sends at once (a reader of the journal misses none)");
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { progressPrinter } from "../../src/cli/commands/run-progress";
import type { RolloutEnd } from "../../src/core/remote/api";
import { eventJson, JobJournal } from "../../src/core/remote/jobs/journal";
import { formatRolloutEndLine, parseRolloutEndLine } from "../../src/core/remote/progress-line";
import { RolloutWatcher } from "../../src/core/remote/jobs/rollout-watch";

test("a rollout-end progress line reads back as written; other and malformed lines are no end", () => {
  const end = { task: "t1", sample: 3, status: "completed", reward: 0.5, file: "/runs/r/rollouts/a.jsonl" };
  assert.deepEqual(parseRolloutEndLine(formatRolloutEndLine(end)), end);
  assert.deepEqual(parseRolloutEndLine(formatRolloutEndLine({ ...end, reward: null })), { ...end, reward: null });
  assert.equal(parseRolloutEndLine("completed reward=0.500 t1 #3"), undefined);
  assert.equal(parseRolloutEndLine("@rlenv-rollout-end {not json"), undefined);
  assert.equal(parseRolloutEndLine('@rlenv-rollout-end {"task":"t1","sample":"3","status":"completed","reward":1,"file":"f"}'), undefined);
  assert.equal(parseRolloutEndLine('@rlenv-rollout-end {"task":"t1","sample":3,"status":"completed","reward":"1","file":"f"}'), undefined);
});

test("--progress-jsonl: rollout ends leave as machine lines, gathered, all out by finish", () => {
  let out = "";
  const write = (s: string) => {
    out += s;
    return true;
  };
  const stream = { isTTY: false, write } as unknown as NodeJS.WriteStream;
  const p = progressPrinter(stream, false, true);
  const end = {
    type: "rollout-end" as const,
    task: "t1",
    sample: 0,
    rolloutId: "t1.s0",
    status: "completed" as const,
    reward: 1,
    file: "/r/rollouts/x.jsonl",
    infra: false,
  };
  p.onProgress(end);
  p.onProgress({ ...end, sample: 1 });
  p.finish();
  const lines = out.trim().split("\n");
  assert.deepEqual(
    lines.map((l) => parseRolloutEndLine(l)?.sample),
    [0, 1],
  );
});

test("ends reported by the writer are not read again by a scan; unreported ones are", () => {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-pushed-"));
  try {
    const dir = path.join(root, "units", "u0", "run1", "rollouts");
    mkdirSync(dir, { recursive: true });
    const traj = (task: string, reward: number) =>
      `{"type":"start","task":{"id":"${task}"},"sample":0}\n{"type":"end","status":"completed","reward":${reward}}\n`;
    writeFileSync(path.join(dir, "a.jsonl"), traj("ta", 1));
    writeFileSync(path.join(dir, "b.jsonl"), traj("tb", 0));
    const ends: RolloutEnd[] = [];
    // A relative units dir: the pushed (absolute) and scanned names of a file must agree.
    const rel = path.relative(process.cwd(), path.join(root, "units", "u0"));
    const w = new RolloutWatcher(
      () => [{ id: "u0", dir: rel }],
      (e) => ends.push(e),
      0,
    );
    w.noteEnd("u0", { task: "ta", sample: 0, status: "completed", reward: 1, file: path.join(dir, "a.jsonl") });
    w.noteEnd("u0", { task: "ta", sample: 0, status: "completed", reward: 1, file: path.join(dir, "a.jsonl") });
    w.scan();
    assert.deepEqual(
      ends.map((e) => [e.file, e.task, e.reward]),
      [
        ["rollouts/a.jsonl", "ta", 1],
        ["rollouts/b.jsonl", "tb", 0],
      ],
    );
    assert.equal(w.all().length, 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("events appended together get consecutive ids in one journal, and SSE reuses their JSON", () => {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-journal-"));
  try {
    const j = new JobJournal(root);
    mkdirSync(j.jobDir("j1"), { recursive: true });
    const first = j.append("j1", { type: "log", line: "one" });
    const batch = j.appendAll("j1", [
      { type: "log", line: "two" },
      { type: "state", state: "running" },
    ]);
    j.close();
    assert.deepEqual([first.id, ...batch.map((e) => e.id)], [1, 2, 3]);
    const lines = readFileSync(path.join(j.jobDir("j1"), "events.jsonl"), "utf8")
      .trim()
      .split("\n");
    assert.deepEqual(lines, [first, ...batch].map(eventJson));
    assert.deepEqual(
      new JobJournal(root).eventsAfter("j1", 1).map((e) => e.id),
      [2, 3],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

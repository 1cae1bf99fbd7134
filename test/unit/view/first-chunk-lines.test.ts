import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { TrajectoryIndex } from "../../../src/core/view/server/trajectory-index";
import { writeBigRollout } from "../../fixtures/trajectories";

/**
 * The first screen is answered from the lines the index parsed while reading its first chunk
 * (not read and parsed again): its rows and steps must be exactly those read from disk, with
 * the hostile lines a file may hold (a byte order mark, blank and space-only lines, bad JSON,
 * an event that fails its schema, right-to-left text) where they are.
 */
test("index: rows and steps answered from the first chunk's parsed lines equal those read again from disk", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-first-chunk-"));
  const source = path.join(dir, "source.jsonl");
  await writeBigRollout(source, 300, 3 * 1024 * 1024);
  const lines = readFileSync(source, "utf8").split("\n").filter(Boolean);
  const hostile = [
    "",
    "   ",
    "{not json",
    JSON.stringify({ type: "message", role: "nobody", content: 3 }),
    "\r",
    JSON.stringify({ type: "message", role: "user", content: "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd", t: 1 }),
  ];
  const mixed = [lines[0], ...hostile, ...lines.slice(1, 6), ...hostile, ...lines.slice(6)];
  const file = path.join(dir, "hostile.jsonl");
  // With a byte order mark, and larger than a chunk: the first screen is answered while the rest waits.
  writeFileSync(file, `\ufeff${mixed.join("\n")}\n`);

  const early = await TrajectoryIndex.open(file, { firstChunk: true, restAfter: new Promise(() => {}) });
  assert.ok(early.scanning, "the rest of the file is held back");
  const rows = early.rowCount;
  assert.ok(rows > 2, `the first chunk holds several rows (${rows})`);
  const fromChunk = {
    entries: await early.entries(0, rows - 1),
    step: await early.stepWindow(0, 0, 1000),
    rows: await early.rows(0, rows - 1),
  };

  const whole = await TrajectoryIndex.open(file);
  assert.deepEqual(fromChunk.entries, await whole.entries(0, rows - 1));
  assert.deepEqual(fromChunk.step, await whole.stepWindow(0, 0, 1000));
  assert.deepEqual(fromChunk.rows, await whole.rows(0, rows - 1));
  // The hostile lines are where they were: problems with their line numbers, blank lines skipped.
  const problems = fromChunk.entries.flatMap((r) => r.entries.filter((e) => "problem" in e).map((e) => e.line));
  assert.ok(problems.includes(4) && problems.includes(5), `bad JSON and a bad event are problems on lines 4 and 5 (${problems})`);
  assert.ok(!fromChunk.entries.some((r) => r.entries.some((e) => e.line === 2 || e.line === 3)), "blank and space-only lines are no entry");
});

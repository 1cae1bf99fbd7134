import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { filterRollouts, parseMetaConditions } from "../../../src/core/view/model/rollout-filter";
import { eachToken, snippet, tokens } from "../../../src/core/view/model/search-text";
import type { RolloutRow, SearchResults } from "../../../src/core/view/protocol/dashboard";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type FixtureRuns, writeFixtureRuns } from "../../fixtures/trajectories";

let runs: FixtureRuns;
before(() => {
  runs = writeFixtureRuns(mkdtempSync(path.join(tmpdir(), "rlenv-search-")));
});

test("search text: word tokens, lower-cased, once each; snippets mark the words", () => {
  assert.deepEqual(tokens("Ran pytest: 3 FAILED, test_mean failed"), ["ran", "pytest", "3", "failed", "test_mean"]);
  const s = snippet(`${"x ".repeat(200)}the Mean is wrong`, ["mean"]);
  assert.ok(s.text.startsWith("…"));
  const [a, b] = s.ranges[0]!;
  assert.equal(s.text.slice(a, b), "Mean");
});

test("search text: the ASCII fast path of the tokeniser gives exactly the Unicode regex's tokens, whatever the text holds", () => {
  const reference = (t: string) => [...t.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)].map((m) => m[0]).filter((w) => w.length <= 40);
  const parts = [
    "a",
    "Bc",
    "z9",
    "_",
    " ",
    "-",
    ".",
    "\n",
    "é",
    "İ",
    "ß",
    "😀",
    "\u0301",
    "Ω",
    "日本",
    "٣",
    "x".repeat(41),
    "Y".repeat(40),
  ];
  let seed = 7;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  for (let k = 0; k < 5000; k++) {
    const text = Array.from({ length: Math.floor(rand() * 24) }, () => parts[Math.floor(rand() * parts.length)]).join("");
    const got: string[] = [];
    eachToken(text, (w) => got.push(w));
    assert.deepEqual(got, reference(text), JSON.stringify(text));
  }
  // A word that runs into a non-ASCII letter is one word, read from its start.
  assert.deepEqual(tokens("the Café au lait, café"), ["the", "café", "au", "lait"]);
});

test("search: every message, tool call and observation of a run; all words in one event; hits link to their step", async () => {
  const svc = new ViewService(runs.code);
  const r = (await svc.handle("search", { dir: ".", query: "def mean" })) as SearchResults;
  assert.ok(r.total > 0);
  assert.equal(r.files, 12);
  for (const hit of r.hits) {
    assert.match(hit.snippet.toLowerCase(), /mean/);
    const step = (await svc.handle("step", { file: hit.file, row: hit.row, limit: 2000 })) as { entries: Array<{ line: number }> };
    assert.ok(
      step.entries.some((e) => e.line === hit.line),
      `${hit.file} row ${hit.row} holds line ${hit.line}`,
    );
  }
  assert.ok(new Set(r.hits.map((h) => h.kind)).size >= 2, "found in more than one kind of event");
  const none = (await svc.handle("search", { dir: ".", query: "mean zzzznotthere" })) as SearchResults;
  assert.equal(none.total, 0);
  // Limited to some rollouts (what the filtered table shows).
  const one = r.hits[0]!.file;
  const only = (await svc.handle("search", { dir: ".", query: "def mean", files: [one] })) as SearchResults;
  assert.equal(only.files, 1);
  assert.ok(only.hits.every((h) => h.file === one));
});

test("search: a rollout still being written is searched as it grows, query after query", async () => {
  const run = mkdtempSync(path.join(tmpdir(), "rlenv-search-live-"));
  mkdirSync(path.join(run, "rollouts"));
  const file = path.join(run, "rollouts", "live.jsonl");
  const line = (e: Record<string, unknown>, seq: number) => `${JSON.stringify({ ...e, seq, t: 1 + seq })}\n`;
  writeFileSync(
    file,
    line(
      { type: "start", run_id: "r", rollout_id: "live", env: { name: "e", hash: "h", domain: "code" }, task: { id: "t", prompt: "p" } },
      0,
    ),
  );
  const svc = new ViewService(run);
  const total = async (q: string) => ((await svc.handle("search", { dir: ".", query: q })) as SearchResults).total;
  assert.equal(await total("firstword"), 0);
  appendFileSync(file, line({ type: "message", role: "user", content: "firstword" }, 1));
  assert.equal(await total("firstword"), 1);
  appendFileSync(file, line({ type: "message", role: "assistant", content: "secondword firstword" }, 2));
  assert.equal(await total("firstword"), 2);
  assert.equal(await total("secondword"), 1);
});

test("filters: status, reward, duration, tokens and metadata fields", async () => {
  const svc = new ViewService(runs.code, { summaryCache: null });
  const rows = (await svc.handle("rollouts", { dir: "." })) as RolloutRow[];
  assert.ok(rows[0]!.meta.some(([k, v]) => k === "policy.model" && v === "fixture-model"));
  assert.equal(filterRollouts(rows, {}).length, 12);
  assert.equal(filterRollouts(rows, { meta: "task.id=stats-mean" }).length, 4);
  assert.equal(filterRollouts(rows, { meta: "task.id~stats, sample=0" }).length, 2);
  assert.equal(filterRollouts(rows, { meta: "policy.model=other" }).length, 0);
  const rewards = rows.map((r) => r.reward!);
  const hi = filterRollouts(rows, { reward: { min: 1 } });
  assert.equal(hi.length, rewards.filter((x) => x >= 1).length);
  assert.ok(hi.length > 0 && hi.length < 12);
  const tokens = rows.map((r) => r.tokens!).sort((a, b) => a - b);
  assert.equal(filterRollouts(rows, { tokens: { max: tokens[5]! } }).length, tokens.filter((t) => t <= tokens[5]!).length);
  const secs = rows.map((r) => r.duration_ms! / 1000).sort((a, b) => a - b);
  assert.equal(
    filterRollouts(rows, { duration: { min: secs[3]!, max: secs[8]! } }).length,
    secs.filter((s) => s >= secs[3]! && s <= secs[8]!).length,
  );
  assert.equal(filterRollouts(rows, { status: "completed", reward: { max: -1 } }).length, 0);
  assert.deepEqual(parseMetaConditions("a=1, b~x\nnonsense").errors, ['"nonsense": write key=value or key~text']);
});

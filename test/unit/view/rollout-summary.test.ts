import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { Dashboard, RolloutPage } from "../../../src/core/view/protocol/dashboard";
import { type RolloutSummary, summariseFile } from "../../../src/core/view/server/rollout-summary";
import { SummaryCache } from "../../../src/core/view/server/summary-cache";
import { ViewService } from "../../../src/core/view/server/view-service";

const line = (e: Record<string, unknown>, seq: number) => `${JSON.stringify({ ...e, seq, t: 1000 + seq })}\n`;
const start = (id: string, task = "t") => ({
  type: "start",
  run_id: "r",
  rollout_id: id,
  env: { name: "e", hash: "h", domain: "code" },
  task: { id: task, prompt: "p" },
  policy: { kind: "oracle", model: "m1" },
  sample: 0,
  sandbox: { backend: "process" },
});
const assistant = (latency: number) => ({ type: "message", role: "assistant", content: "ok", latency_ms: latency });
const observation = (truncated: boolean) => ({
  type: "observation",
  tool_call_id: "c1",
  name: "run",
  status: "ok",
  output: "out",
  duration_ms: 3,
  ...(truncated ? { truncated: { original_chars: 100, kept_chars: 10 } } : {}),
});
const reward = (total: number) => ({
  type: "reward",
  total,
  components: [{ name: "tests", type: "command", weight: 1, score: total }],
});
const end = (status: string, r: number | null) => ({
  type: "end",
  status,
  reward: r,
  turns: 1,
  usage: { prompt_tokens: 10, completion_tokens: 5 },
  timings: { total_ms: 50, policy_ms: 10, sandbox_ms: 10, verify_ms: 10 },
});

function runFolder(): string {
  const run = mkdtempSync(path.join(tmpdir(), "rlenv-summary-"));
  mkdirSync(path.join(run, "rollouts"));
  return run;
}

test("a finished rollout's summary: its row, the report's fields from every line, and the policy's busy intervals", async () => {
  const run = runFolder();
  const file = path.join(run, "rollouts", "a.jsonl");
  writeFileSync(
    file,
    [line(start("a"), 0), line(assistant(4), 1), line(observation(true), 2), line(reward(1), 3), line(end("completed", 1), 4)].join(""),
  );
  const s = await summariseFile(file);
  assert.equal(s.row.id, "a");
  assert.equal(s.row.status, "completed");
  assert.equal(s.row.reward, 1);
  assert.equal(s.row.tokens, 15);
  assert.equal(s.row.duration_ms, 50);
  assert.equal(s.row.problemCount, 0);
  assert.ok(s.row.meta.some(([k, v]) => k === "policy.model" && v === "m1"));
  assert.deepEqual(s.policy, [1001 - 4, 1001]);
  assert.equal(s.report?.observations, 1);
  assert.equal(s.report?.observationsTruncated, 1);
  assert.deepEqual(
    s.report?.components.map((c) => [c.name, c.score]),
    [["tests", 1]],
  );
});

test("unfinished, infrastructure-failed and torn rollouts are summarised as the trajectory view reads them", async () => {
  const run = runFolder();
  const dir = path.join(run, "rollouts");
  // No end event: still running (the report calls it interrupted); its reward is unknown.
  writeFileSync(path.join(dir, "open.jsonl"), [line(start("open"), 0), line(assistant(2), 1)].join(""));
  const open = await summariseFile(path.join(dir, "open.jsonl"));
  assert.deepEqual([open.row.status, open.row.reward, open.row.turns, open.row.ended], ["running", null, null, null]);
  assert.equal(open.report?.status, "interrupted");

  // An error the infrastructure caused: infra_error, never a score.
  writeFileSync(
    path.join(dir, "infra.jsonl"),
    [line(start("infra"), 0), line({ type: "error", where: "sandbox", message: "gone", infra: true }, 1), line(end("error", null), 2)].join(
      "",
    ),
  );
  const infra = await summariseFile(path.join(dir, "infra.jsonl"));
  assert.equal(infra.row.status, "infra_error");
  assert.equal(infra.report?.infra, true);

  // A last line cut short (a writer killed mid-line): not an event and not counted as a problem yet; an
  // unreadable line in the middle is one.
  writeFileSync(
    path.join(dir, "torn.jsonl"),
    `${line(start("torn"), 0)}{"type":"message" nonsense\n${line(assistant(1), 2)}{"type":"end","status":"comp`,
  );
  const torn = await summariseFile(path.join(dir, "torn.jsonl"));
  assert.equal(torn.row.status, "running");
  assert.equal(torn.row.problemCount, 1);
  assert.match(torn.row.problems[0]!, /^line 2: invalid JSON/);

  // A file with no start event says nothing to the report, and its row is named by its file.
  writeFileSync(path.join(dir, "nostart.jsonl"), line(end("completed", 1), 0));
  const nostart = await summariseFile(path.join(dir, "nostart.jsonl"));
  assert.equal(nostart.row.id, "nostart");
  assert.equal(nostart.report, null);
});

test("the summary cache: a file not changed is not read again, in this process or the next; a changed one is", async () => {
  const run = runFolder();
  const cacheDir = mkdtempSync(path.join(tmpdir(), "rlenv-summary-cache-"));
  const a = path.join(run, "rollouts", "a.jsonl");
  const b = path.join(run, "rollouts", "b.jsonl");
  writeFileSync(a, [line(start("a"), 0), line(end("completed", 1), 1)].join(""));
  writeFileSync(b, [line(start("b"), 0), line(end("completed", 0), 1)].join(""));
  const read: string[] = [];
  const counting = (f: string): Promise<RolloutSummary> => {
    read.push(path.basename(f));
    return summariseFile(f);
  };
  const first = new SummaryCache(cacheDir);
  await first.summaries(run, [a, b], counting);
  assert.deepEqual(read.sort(), ["a.jsonl", "b.jsonl"]);
  await first.summaries(run, [a, b], counting);
  assert.equal(read.length, 2, "nothing read again while nothing changed");
  await first.save(run, [a, b]);
  assert.equal(readdirSync(cacheDir).length, 1, "one cache file per run folder, outside it");
  assert.deepEqual(readdirSync(run).sort(), ["rollouts"], "nothing written into the run folder");

  // A new process (a new `rlenv view`) finds the summaries on disk.
  read.length = 0;
  const next = new SummaryCache(cacheDir);
  const again = await next.summaries(run, [a, b], counting);
  assert.deepEqual(read, []);
  assert.deepEqual(
    again.map((s) => [s.row.id, s.row.reward]),
    [
      ["a", 1],
      ["b", 0],
    ],
  );

  // b is rewritten with the same size (its reward 0 → 1) and a later mtime: read again, and only b.
  writeFileSync(b, [line(start("b"), 0), line(end("completed", 1), 1)].join(""));
  const later = new Date(Date.now() + 5000);
  utimesSync(b, later, later);
  const changed = await next.summaries(run, [a, b], counting);
  assert.deepEqual(read, ["b.jsonl"]);
  assert.equal(changed[1]!.row.reward, 1);

  // A file that grows (a live rollout gets its end) is read again too.
  read.length = 0;
  const c = path.join(run, "rollouts", "c.jsonl");
  writeFileSync(c, line(start("c"), 0));
  assert.equal((await next.summaries(run, [c], counting))[0]!.row.status, "running");
  appendFileSync(c, line(end("timeout", 0), 1));
  assert.equal((await next.summaries(run, [c], counting))[0]!.row.status, "timeout");
  assert.deepEqual(read, ["c.jsonl", "c.jsonl"]);

  // A cache file that is not JSON, or whose entries are not summaries, is ignored: every file is read.
  const cacheFile = path.join(cacheDir, readdirSync(cacheDir)[0]!);
  for (const bad of [
    "{not json",
    JSON.stringify({ version: 1, runDir: run, entries: { "a.jsonl": { version: "x", summary: { row: 1 } } } }),
  ]) {
    writeFileSync(cacheFile, bad);
    read.length = 0;
    await new SummaryCache(cacheDir).summaries(run, [a, b], counting);
    assert.deepEqual(read.sort(), ["a.jsonl", "b.jsonl"]);
  }
  assert.ok(readFileSync(cacheFile, "utf8").length > 0);
});

test("the dashboard over cached summaries: aggregates over every rollout, pages sorted and filtered on the server", async () => {
  const run = runFolder();
  const cacheDir = mkdtempSync(path.join(tmpdir(), "rlenv-summary-cache-"));
  for (let k = 0; k < 30; k++)
    writeFileSync(
      path.join(run, "rollouts", `r${k}.jsonl`),
      [line(start(`r${k}`, `t${k % 3}`), 0), line(reward(k % 2), 1), line(end(k % 5 === 0 ? "timeout" : "completed", k % 2), 2)].join(""),
    );
  for (const svc of [new ViewService(run, { summaryCache: cacheDir }), new ViewService(run, { summaryCache: cacheDir })]) {
    const d = (await svc.handle("run", { dir: "." })) as Dashboard & { rollouts?: unknown };
    assert.equal(d.rollouts, undefined, "the reply carries no rows");
    assert.equal(d.rolloutCount, 30);
    assert.equal(d.meanReward, 15 / 30);
    assert.deepEqual(d.statuses, [
      ["completed", 24],
      ["timeout", 6],
    ]);
    assert.equal(
      d.perTask.reduce((n, t) => n + t.n, 0),
      30,
    );
    assert.ok(d.metaKeys.includes("policy.model"));
    const page = (await svc.handle("rolloutPage", {
      dir: ".",
      sort: "id",
      desc: true,
      where: { status: "completed", reward: { min: 1 } },
      from: 2,
      count: 3,
    })) as RolloutPage;
    const want = Array.from({ length: 30 }, (_, k) => k)
      .filter((k) => k % 5 !== 0 && k % 2 === 1)
      .map((k) => `r${k}`)
      .sort(new Intl.Collator(undefined, { numeric: true }).compare)
      .reverse();
    assert.equal(page.total, 30);
    assert.equal(page.matched, want.length);
    assert.deepEqual(
      page.rows.map((r) => r.id),
      want.slice(2, 5),
    );
    // Wait for the cache to be written after the reply (setImmediate), so the second service finds it.
    await new Promise((r) => setTimeout(r, 50));
  }
  await assert.rejects(svc0().handle("rolloutPage", { dir: ".", from: 0, count: 100_000 }), /bad params: count/);
  function svc0() {
    return new ViewService(run, { summaryCache: null });
  }
});

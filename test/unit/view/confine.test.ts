import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startViewServer, targetFor } from "../../../src/core/view/server/http-server";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type FixtureRuns, writeFixtureRuns } from "../../fixtures/trajectories";

let dir: string;
let runs: FixtureRuns;
let outside: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "rlenv-confine-"));
  runs = writeFixtureRuns(path.join(dir, "runs"));
  outside = path.join(dir, "secret.jsonl");
  writeFileSync(outside, `${JSON.stringify({ secret: "do not serve" })}\n`);
});

/** The run folder's table rows (the `run` reply carries only their count). */
const rowsOf = async (svc: ViewService) => (await svc.handle("rollouts", { dir: "." })) as Array<{ file: string }>;

test("links out of the run folder are refused, by request and in the run listing", async () => {
  const run = runs.code;
  symlinkSync(outside, path.join(run, "rollouts", "zz-link-out.jsonl"));
  symlinkSync("/etc/passwd", path.join(run, "rollouts", "zz-passwd.jsonl"));
  symlinkSync(path.join(run, "rollouts"), path.join(run, "inside-link"));
  const svc = new ViewService(run);
  await assert.rejects(svc.handle("meta", { file: "rollouts/zz-link-out.jsonl" }), /links outside the served folder/);
  await assert.rejects(svc.handle("step", { file: "rollouts/zz-passwd.jsonl", row: 0 }), /links outside the served folder/);
  // A link that stays inside is followed.
  const m = (await svc.handle("meta", { file: "inside-link/stats-mean-s0.jsonl" })) as { rows: number };
  assert.equal(m.rows, 7);
  const dash = (await svc.handle("run", { dir: "." })) as { rolloutCount: number; problems: string[] };
  const rows = await rowsOf(svc);
  assert.equal(dash.rolloutCount, 12, "the links out are not listed");
  assert.equal(rows.length, 12);
  assert.ok(!rows.some((r) => r.file.includes("zz-")));
  assert.deepEqual(dash.problems.filter((p) => /links outside/.test(p)).sort(), [
    "rollouts/zz-link-out.jsonl: links outside the served folder; not read",
    "rollouts/zz-passwd.jsonl: links outside the served folder; not read",
  ]);
});

test("a run folder whose rollouts folder links out serves no rollouts", async () => {
  const run = path.join(dir, "linked-run");
  mkdirSync(run);
  writeFileSync(path.join(run, "run.json"), "{}");
  symlinkSync(path.join(runs.document, "rollouts"), path.join(run, "rollouts"));
  const svc = new ViewService(run);
  const dash = (await svc.handle("run", { dir: "." })) as { rolloutCount: number; problems: string[] };
  assert.equal(dash.rolloutCount, 0);
  assert.equal((await rowsOf(svc)).length, 0);
  assert.ok(
    dash.problems.some((p) => p === "rollouts: links outside the served folder; not read"),
    dash.problems.join("\n"),
  );
  await assert.rejects(svc.handle("meta", { file: `rollouts/${readdirSync(path.join(runs.document, "rollouts"))[0]}` }), /links outside/);
});

test("search reads only the rollouts that stay inside: a link out is not searched, a link inside is", async () => {
  const run = path.join(dir, "search-run");
  mkdirSync(path.join(run, "rollouts"), { recursive: true });
  mkdirSync(path.join(run, "kept"));
  writeFileSync(path.join(run, "run.json"), "{}");
  const rollout = (word: string) =>
    [
      { type: "start", run_id: "r", rollout_id: word, env: { name: "e", hash: "h", domain: "code" }, task: { id: "t", prompt: "p" } },
      { type: "message", role: "user", content: `find ${word} here` },
    ]
      .map((e, seq) => `${JSON.stringify({ ...e, seq, t: 1 + seq })}\n`)
      .join("");
  writeFileSync(path.join(run, "rollouts", "plain.jsonl"), rollout("plainword"));
  writeFileSync(path.join(run, "kept", "inside.jsonl"), rollout("insideword"));
  symlinkSync(path.join(run, "kept", "inside.jsonl"), path.join(run, "rollouts", "linked-inside.jsonl"));
  const secret = path.join(dir, "outside-rollout.jsonl");
  writeFileSync(secret, rollout("outsideword"));
  symlinkSync(secret, path.join(run, "rollouts", "linked-out.jsonl"));
  const svc = new ViewService(run);
  const search = async (query: string) => (await svc.handle("search", { dir: ".", query })) as { total: number; files: number };
  assert.deepEqual(await search("plainword"), {
    hits: [{ file: "rollouts/plain.jsonl", row: 0, line: 2, kind: "message", snippet: "find plainword here", ranges: [[5, 14]] }],
    total: 1,
    files: 2,
  });
  assert.equal((await search("insideword")).total, 1);
  assert.equal((await search("outsideword")).total, 0);
  // The whole rollouts folder linking out: nothing in it is searched, plain files included.
  const linked = path.join(dir, "search-linked-run");
  mkdirSync(linked);
  symlinkSync(path.join(run, "rollouts"), path.join(linked, "rollouts"));
  assert.equal(((await new ViewService(linked).handle("search", { dir: ".", query: "plainword" })) as { files: number }).files, 0);
});

test("a runner's merged run folder follows its rollouts link within the job folder only", async () => {
  // jobs/<id>/{job.json, units/u0/rollouts, run/rollouts -> ../units/u0/rollouts}, as remote/merge.ts makes it.
  const job = path.join(dir, "jobs", "j1");
  mkdirSync(path.join(job, "units", "u0"), { recursive: true });
  mkdirSync(path.join(job, "run"));
  writeFileSync(path.join(job, "job.json"), "{}");
  cpSync(path.join(runs.code, "rollouts"), path.join(job, "units", "u0", "rollouts"), { recursive: true, verbatimSymlinks: true });
  renameSync(path.join(job, "units", "u0", "rollouts", "zz-link-out.jsonl"), path.join(job, "units", "u0", "rollouts", "zz-out.jsonl"));
  symlinkSync(path.join("..", "units", "u0", "rollouts"), path.join(job, "run", "rollouts"), "dir");
  const svc = new ViewService(path.join(job, "run"));
  const dash = (await svc.handle("run", { dir: "." })) as { rolloutCount: number; problems: string[] };
  assert.equal((await rowsOf(svc)).length, 12);
  assert.ok(dash.problems.some((p) => /zz-out\.jsonl: links outside/.test(p)));
  await assert.rejects(svc.handle("meta", { file: "rollouts/zz-passwd.jsonl" }), /links outside/);
  // The same layout without job.json is an ordinary folder: its link out is refused.
  const plain = path.join(dir, "plain", "run");
  mkdirSync(plain, { recursive: true });
  symlinkSync(path.join(job, "units", "u0", "rollouts"), path.join(plain, "rollouts"), "dir");
  assert.equal((await rowsOf(new ViewService(plain))).length, 0);
});

let server: Awaited<ReturnType<typeof startViewServer>> | null = null;
after(async () => {
  await server?.close();
});

test("http: the page's CSP is also a header, with frame-ancestors 'none'", async () => {
  const assets = path.join(dir, "assets");
  mkdirSync(assets);
  writeFileSync(path.join(assets, "trajectory.js"), "/* bundle */");
  server = await startViewServer(targetFor(path.join(runs.document, "rollouts", "acme-10k-s0.jsonl")), { assetsDir: assets });
  const res = await fetch(server.url);
  const header = res.headers.get("content-security-policy") ?? "";
  assert.match(header, /default-src 'none'/);
  assert.match(header, /frame-ancestors 'none'/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(await res.text())?.[1]?.replace(/&#39;|&apos;/g, "'");
  assert.ok(meta && header.startsWith(meta.replace(/&quot;/g, '"')), "the header carries the page's own policy");
});

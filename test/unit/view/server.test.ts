import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { renderPage } from "../../../src/core/view/page";
import { startViewServer, targetFor } from "../../../src/core/view/server/http-server";
import { TrajectoryIndex } from "../../../src/core/view/server/trajectory-index";
import { ViewService } from "../../../src/core/view/server/view-service";
import { type FixtureRuns, writeBigRollout, writeFixtureRuns } from "../../fixtures/trajectories";

let dir: string;
let runs: FixtureRuns;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "rlenv-view-"));
  runs = writeFixtureRuns(dir);
});

test("index: rows, meta and scene rows of a scene rollout; observations parsed only on demand", async () => {
  const file = path.join(runs.scene3d, "rollouts", "table-lamp-s0.jsonl");
  const idx = await TrajectoryIndex.open(file);
  const m = idx.meta("x");
  assert.equal(m.domain, "scene3d");
  assert.equal(m.complete, true);
  assert.equal(m.lines, readFileSync(file, "utf8").trimEnd().split("\n").length);
  assert.equal(m.rows, 1 + 9 + 2, "prompt, nine turns, reward, end");
  assert.deepEqual(m.sceneRows, [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(m.problems, []);
  const rows = await idx.rows(0, m.rows);
  assert.deepEqual(
    rows.map((r) => r.kind),
    ["prompt", ...Array(9).fill("turn"), "reward", "end"],
  );
  assert.equal(rows[8]?.has.images, true);
  assert.deepEqual(idx.rowsWith("scene", 3), [1, 2, 3]);
});

test("index: a growing file (live rollout) — torn last line waits, refresh extends the rows", async () => {
  const src = readFileSync(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"), "utf8").split("\n");
  const file = path.join(dir, "live.jsonl");
  writeFileSync(file, `${src.slice(0, 5).join("\n")}\n${src[5]!.slice(0, 20)}`);
  const idx = await TrajectoryIndex.open(file);
  assert.equal(idx.meta("f").lines, 5);
  assert.equal(idx.meta("f").complete, false);
  const before = idx.rowCount;
  appendFileSync(file, `${src[5]!.slice(20)}\n${src.slice(6).join("\n")}`);
  await idx.refresh();
  const m = idx.meta("f");
  assert.equal(m.lines, src.filter((l) => l).length);
  assert.ok(m.rows > before);
  assert.equal(m.complete, true);
  assert.deepEqual(m.problems, []);
});

test("index: unreadable lines are reported by line number and do not lose the rest", async () => {
  const src = readFileSync(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"), "utf8").split("\n");
  const file = path.join(dir, "broken.jsonl");
  // Line 4 is not JSON; line 5 is JSON but not an event; line 6 has its keys in another order.
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(src[3]!) as object).reverse()));
  writeFileSync(file, [...src.slice(0, 3), "{not json", '{"type":"message","seq":"x"}', reordered, ...src.slice(4)].join("\n"));
  const idx = await TrajectoryIndex.open(file);
  const m = idx.meta("f");
  assert.deepEqual(
    m.problems.map((p) => p.line),
    [4, 5],
  );
  assert.match(m.problems[0]!.message, /invalid JSON/);
  assert.match(m.problems[1]!.message, /seq/);
  assert.equal(m.complete, true);
  const rows = await idx.rows(0, m.rows);
  assert.ok(
    rows.some((r) => r.title === "Turn 0"),
    "the reordered assistant message still opens its turn",
  );
  const step = await idx.entries(0, 1);
  assert.ok(step[0]!.entries.some((e) => "problem" in e && e.line === 4));
});

test("index: a large file answers after its first chunk and finishes in the background", async () => {
  const file = path.join(dir, "big", "rollouts", "big.jsonl");
  await writeBigRollout(file, 1500, 12 * 1024 * 1024);
  const idx = await TrajectoryIndex.open(file, { firstChunk: true });
  const early = idx.meta("f");
  assert.equal(early.indexing, true);
  assert.ok(early.rows > 1 && early.rows < 1500, `some rows before the whole file is read (${early.rows})`);
  const first = await idx.rows(0, 2);
  assert.equal(first[1]?.title, "Turn 0");
  await idx.whenIndexed();
  const m = idx.meta("f");
  assert.equal(m.indexing, false);
  assert.equal(m.rows, 1 + 1500 + 2);
  assert.equal(m.complete, true);
  assert.equal(idx.policyIntervals.length, 1500, "a busy interval per assistant message, read without parsing");
});

test("index: seq and t written last (the rollout writer's order) still give policy intervals", async () => {
  const src = readFileSync(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"), "utf8")
    .trimEnd()
    .split("\n");
  const reordered = src.map((l) => {
    const { seq, t, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return JSON.stringify({ ...rest, seq, t });
  });
  const file = path.join(dir, "writer-order.jsonl");
  writeFileSync(file, `${reordered.join("\n")}\n`);
  const idx = await TrajectoryIndex.open(file);
  const orig = await TrajectoryIndex.open(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"));
  assert.equal(idx.policyIntervals.length, 4);
  assert.deepEqual(idx.policyIntervals, orig.policyIntervals);
});

test("service: requests confined to the root; bad params named; results parsed", async () => {
  const svc = new ViewService(runs.code);
  await assert.rejects(svc.handle("meta", { file: "../fixture-xss/rollouts/xss.jsonl" }), /outside the served folder/);
  await assert.rejects(svc.handle("meta", { file: "/etc/passwd" }), /outside the served folder/);
  await assert.rejects(svc.handle("rows", { file: "rollouts/stats-mean-s0.jsonl", from: -1, to: 2 }), /bad params: from/);
  await assert.rejects(svc.handle("nope", {}), /unknown method/);
  await assert.rejects(svc.handle("meta", { file: "rollouts/missing.jsonl" }), /no such file/);
  await assert.rejects(svc.handle("step", { file: "rollouts/stats-mean-s0.jsonl", row: 99 }), /has 7 steps/);
  const diff = (await svc.handle("diff", { file: "rollouts/stats-mean-s0.jsonl", row: null })) as Array<{ path: string }>;
  assert.deepEqual(
    diff.map((d) => d.path),
    ["stats.py", "test_empty.py"],
  );
  const dash = (await svc.handle("run", { dir: "." })) as {
    rolloutCount: number;
    perTask: Array<{ task: string; n: number }>;
    statuses: Array<[string, number]>;
  };
  assert.equal(dash.rolloutCount, 12);
  assert.equal(((await svc.handle("rollouts", { dir: "." })) as unknown[]).length, 12);
  assert.deepEqual(
    dash.perTask.map((t) => [t.task, t.n]),
    [
      ["parse-csv", 4],
      ["stats-mean", 4],
      ["stats-median", 4],
    ],
  );
  assert.deepEqual(dash.statuses, [["completed", 12]]);
});

test("targetFor: a rollout file is served from its run folder; other paths are refused", () => {
  const t = targetFor(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"));
  assert.equal(t.root, runs.code);
  assert.equal(t.target, "rollouts/stats-mean-s0.jsonl");
  assert.equal(targetFor(runs.code).app, "dashboard");
  const empty = path.join(dir, "empty");
  mkdirSync(empty);
  assert.throws(() => targetFor(empty), /not a run folder/);
  assert.throws(() => targetFor(path.join(dir, "missing")), /no such file/);
});

test("page: nonce CSP, no inline script, no model text", () => {
  const html = renderPage({
    app: "trajectory",
    title: "t",
    cspSource: "'self'",
    scriptUri: "/assets/trajectory.js",
    styleUri: "/assets/trajectory.css",
    backend: "http",
  });
  const nonce = /script-src 'nonce-([^']+)'/.exec(html)?.[1];
  assert.ok(nonce);
  assert.match(html, new RegExp(`<script type="module" nonce="${nonce.replace(/[+/]/g, "\\$&")}" src="/assets/trajectory.js"></script>`));
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.match(html, /default-src 'none'/);
  assert.notEqual(
    renderPage({ app: "trajectory", title: "t", cspSource: "x", scriptUri: "a", styleUri: "b", backend: "http" }).match(
      /nonce-([^']+)/,
    )?.[1],
    nonce,
  );
});

let server: Awaited<ReturnType<typeof startViewServer>> | null = null;
after(async () => {
  await server?.close();
});

test("http: loopback only, token required for the page and the API", async () => {
  const assets = path.join(dir, "assets");
  mkdirSync(assets);
  writeFileSync(path.join(assets, "trajectory.js"), "/* bundle */");
  server = await startViewServer(targetFor(path.join(runs.document, "rollouts", "acme-10k-s0.jsonl")), { assetsDir: assets });
  const base = new URL(server.url);
  assert.equal(base.hostname, "127.0.0.1");
  assert.equal((await fetch(`${base.origin}/`)).status, 403);
  assert.equal((await fetch(`${base.origin}/?token=wrong`)).status, 403);
  const page = await fetch(server.url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /data-app="trajectory"/);
  assert.equal((await fetch(`${base.origin}/api/init`)).status, 403);
  assert.equal((await fetch(`${base.origin}/assets/trajectory.js`)).status, 200);
  assert.equal((await fetch(`${base.origin}/assets/..%2Frun.json`)).status, 404);
  const auth = { authorization: `Bearer ${server.token}` };
  const init = (await (await fetch(`${base.origin}/api/init`, { headers: auth })).json()) as {
    kind: string;
    context: { app: string; target: string };
  };
  assert.deepEqual([init.kind, init.context.app, init.context.target], ["init", "trajectory", "rollouts/acme-10k-s0.jsonl"]);
  const call = async (method: string, params: unknown) =>
    (await (
      await fetch(`${base.origin}/api/request`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ kind: "request", id: 7, method, params }),
      })
    ).json()) as { id: number; ok: boolean; result?: { pages: unknown[]; fields: Array<{ field: string }> }; error?: string };
  const docs = await call("documents", { file: "rollouts/acme-10k-s0.jsonl" });
  assert.equal(docs.ok, true);
  assert.equal(docs.id, 7);
  assert.equal(docs.result?.pages.length, 3);
  assert.deepEqual(
    docs.result?.fields.map((f) => f.field),
    ["revenue_2024", "net_income", "headquarters"],
  );
  const bad = await call("meta", { file: "../../x" });
  assert.equal(bad.ok, false);
  assert.match(bad.error ?? "", /outside/);
});

test("http: stopping the viewer does not wait for a page's open connection", { timeout: 30_000 }, async () => {
  const assets = mkdtempSync(path.join(tmpdir(), "rlenv-view-assets-"));
  writeFileSync(path.join(assets, "trajectory.js"), "/* bundle */");
  const s = await startViewServer(targetFor(path.join(runs.document, "rollouts", "acme-10k-s0.jsonl")), { assetsDir: assets });
  const { port } = new URL(s.url);
  // A request whose body never ends (a page still talking to the server), and a kept-alive socket.
  const sock = net.connect(Number(port), "127.0.0.1");
  await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
  sock.write(`POST /api/request HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${s.token}\r\ncontent-length: 1000\r\n\r\n{`);
  const ended = new Promise<void>((resolve) => sock.once("close", () => resolve()));
  await new Promise((r) => setTimeout(r, 50));
  // close() resolves (the test's own timeout bounds it) and the open connection is ended by it.
  await s.close();
  await ended;
});

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { COMPARE_PAGE, rowRangesFor } from "../../../src/core/view/model/compare-window";
import { FromHost, requestKey } from "../../../src/core/view/protocol/envelope";
import { type RunningViewServer, startViewServer, targetFor } from "../../../src/core/view/server/http-server";
import { ViewService } from "../../../src/core/view/server/view-service";
import { writeBigRollout } from "../../fixtures/trajectories";

let dir: string;
let file: string;
let assets: string;
const servers: RunningViewServer[] = [];
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "rlenv-first-screen-"));
  file = path.join(dir, "rollouts", "big.jsonl");
  mkdirSync(path.dirname(file), { recursive: true });
  // Larger than the index's first chunk, so the first screen is answered while the rest is read.
  await writeBigRollout(file, 400, 4 * 1024 * 1024);
  assets = path.join(dir, "assets");
  mkdirSync(assets);
  writeFileSync(path.join(assets, "trajectory.js"), "/* bundle */");
});
after(async () => {
  for (const s of servers) await s.close();
});

async function init(server: RunningViewServer, query = ""): Promise<FromHost & { kind: "init" }> {
  const res = await fetch(`${new URL(server.url).origin}/api/init?${query}`, { headers: { authorization: `Bearer ${server.token}` } });
  const m = FromHost.parse(await res.json());
  assert.equal(m.kind, "init");
  return m as FromHost & { kind: "init" };
}

test("http: init carries the first screen (meta, the first page of rows, the first step), as the app asks for them", async () => {
  const server = await startViewServer(targetFor(file), { assetsDir: assets });
  servers.push(server);
  const m = await init(server);
  const target = m.context.target;
  assert.deepEqual(
    m.preload?.map((p) => requestKey(p.method, p.params)),
    [
      requestKey("meta", { file: target }),
      // The app's own params: the virtual list asks for [from, min(rows, from + 100)), the steps panel for the row from 0.
      requestKey("rows", { file: target, from: 0, to: Math.min(100, (m.preload![0]!.result as { rows: number }).rows) }),
      requestKey("step", { row: 0, from: 0, file: target }),
    ],
  );
  // Each reply is what the request itself answers (a fresh service, the file fully read).
  const svc = new ViewService(path.dirname(path.dirname(file)));
  // A fresh service answers a big file from its first chunk too: wait until it has read the whole file.
  for (let i = 0; i < 600 && ((await svc.handle("meta", { file: target })) as { indexing: boolean }).indexing; i++)
    await new Promise((r) => setTimeout(r, 50));
  // While the file is still being read, its last row so far may lack events still to come (the app fetches that page again).
  const partial = (m.preload![0]!.result as { indexing: boolean }).indexing;
  const [rowsAhead, stepAhead] = [m.preload![1]!, m.preload![2]!];
  const ahead = rowsAhead.result as unknown[];
  const now = (await svc.handle("rows", rowsAhead.params)) as unknown[];
  const whole = partial ? ahead.length - 1 : ahead.length;
  assert.deepEqual(ahead.slice(0, whole), now.slice(0, whole));
  assert.deepEqual(stepAhead.result, await svc.handle("step", stepAhead.params));
  const rows = m.preload![1]!.result as Array<{ index: number }>;
  assert.ok(rows.length > 0 && rows[0]!.index === 0);
});

test("http: with a compare in the URL, init also carries the alignment and the row summaries of the compare list's first page, as the compare panel asks for them", async () => {
  // A second rollout beside the first, so the alignment has two different files to line up.
  const other = path.join(path.dirname(file), "other.jsonl");
  await writeBigRollout(other, 120, 256 * 1024);
  const server = await startViewServer(targetFor(file), { assetsDir: assets });
  servers.push(server);
  const m = await init(server, `compare=${encodeURIComponent("rollouts/other.jsonl")}`);
  const files = [m.context.target, "rollouts/other.jsonl"];
  const preload = m.preload ?? [];
  // The first screen of the rollout itself still comes first.
  assert.deepEqual(
    preload.slice(0, 3).map((p) => p.method),
    ["meta", "rows", "step"],
  );
  const align = preload.find((p) => p.method === "align");
  assert.ok(align, "no alignment in init");
  assert.deepEqual(align.params, { files });
  const lines = (align.result as { lines: Array<Array<number | null>> }).lines;
  assert.ok(lines.length > 0);
  // Exactly the rows requests the panel makes for its first page (the same function names them), each answered.
  const page = lines.slice(0, COMPARE_PAGE);
  const asked = files.flatMap((f, k) => rowRangesFor(page, k).map((r) => requestKey("rows", { file: f, ...r })));
  assert.ok(asked.length >= 2);
  assert.deepEqual(
    preload.filter((p) => p.method === "rows" && p !== preload[1]).map((p) => requestKey(p.method, p.params)),
    asked,
  );
  for (const p of preload.filter((x) => x.method === "rows" && x !== preload[1])) {
    const got = p.result as Array<{ index: number }>;
    const { from, to } = p.params as { from: number; to: number };
    assert.ok(got.length > 0 && got.every((r) => r.index >= from && r.index < to), JSON.stringify(p.params));
  }
  // Each line names a row of each file, or none; every row is in order.
  for (let k = 0; k < files.length; k++) {
    const rows = lines.map((l) => l[k]).filter((r): r is number => r !== null && r !== undefined);
    assert.deepEqual(
      rows,
      [...rows].sort((a, b) => a - b),
    );
  }
});

test("http: a search hit's row is the first screen's step, its page of rows with it; off, init carries nothing", async () => {
  const server = await startViewServer(targetFor(file), { assetsDir: assets });
  servers.push(server);
  // Wait until the server has read the whole file, so row 250 exists in its meta.
  let m = await init(server, "row=250");
  for (let i = 0; i < 200 && (m.preload![0]!.result as { indexing: boolean }).indexing; i++) {
    await new Promise((r) => setTimeout(r, 50));
    m = await init(server, "row=250");
  }
  const [, rows, step] = m.preload!;
  assert.deepEqual(rows!.params, { file: m.context.target, from: 200, to: 300 });
  assert.deepEqual(step!.params, { file: m.context.target, row: 250, from: 0 });
  assert.equal((step!.result as { row: number }).row, 250);

  const plain = await startViewServer(targetFor(file), { assetsDir: assets, firstScreen: false });
  servers.push(plain);
  assert.equal((await init(plain)).preload, undefined);
});

test("http: the page carries init (as /api/init answers it) and names the bundle's static chunks as module preloads", async () => {
  const withChunks = path.join(dir, "assets-chunks");
  mkdirSync(withChunks);
  writeFileSync(
    path.join(withChunks, "trajectory.js"),
    'import{a as T,b as $w}from"./chunk-A.js";import"./chunk-B.js";const lazy=()=>import("./trajectory-diff.js");import("./chunk-Z.js");',
  );
  writeFileSync(path.join(withChunks, "chunk-A.js"), 'import{c}from"./chunk-C.js";export const a=1,b=c;');
  writeFileSync(path.join(withChunks, "chunk-B.js"), 'import"./chunk-A.js";\nexport{};');
  writeFileSync(path.join(withChunks, "chunk-C.js"), "export const c=2;");
  const server = await startViewServer(targetFor(file), { assetsDir: withChunks });
  servers.push(server);
  const html = await (await fetch(server.url)).text();
  const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(preloads, ["/assets/chunk-A.js", "/assets/chunk-C.js", "/assets/chunk-B.js"]);
  const block = /<script type="application\/json" id="rlenv-init">(.*?)<\/script>/s.exec(html)?.[1];
  assert.ok(block, "no init in the page");
  const sent = FromHost.parse(JSON.parse(block));
  assert.equal(sent.kind, "init");
  const asked = await init(server);
  assert.deepEqual(sent.kind === "init" && sent.context, asked.context);
  // The same first screen (the rows page may have grown in between: the file is still being read).
  assert.deepEqual(
    sent.kind === "init" && sent.preload?.map((p) => p.method),
    asked.preload?.map((p) => p.method),
  );
  assert.deepEqual(sent.kind === "init" && sent.preload?.[2], asked.preload?.[2]);
  // The data block comes before </body> and after the bundle's script tag (the app runs once the page is whole).
  assert.ok(
    html.indexOf('id="rlenv-init"') > html.indexOf('<script type="module"') && html.indexOf('id="rlenv-init"') < html.indexOf("</body>"),
  );

  // No text in the reply can end the element: a file name that tries is escaped, and reads back the same.
  const hostile = "</script><script>alert(1)</script>.jsonl";
  const page = await (await fetch(`${server.url}&file=${encodeURIComponent(hostile)}`)).text();
  assert.ok(!page.includes("<script>alert(1)"), page);
  const m = FromHost.parse(JSON.parse(/id="rlenv-init">(.*?)<\/script>/s.exec(page)?.[1] ?? ""));
  assert.equal(m.kind === "init" && m.context.target, hostile);

  // Off (the benchmark's before), the page carries neither.
  const plain = await startViewServer(targetFor(file), { assetsDir: withChunks, firstScreen: false });
  servers.push(plain);
  const bare = await (await fetch(plain.url)).text();
  assert.ok(!bare.includes("modulepreload") && !bare.includes("rlenv-init"));
});

test("index: past its first chunk, a file is read only once `restAfter` resolves (the server holds it while the first screen is answered)", async () => {
  const { TrajectoryIndex } = await import("../../../src/core/view/server/trajectory-index");
  const size = statSync(file).size;
  let release = () => {};
  const restAfter = new Promise<void>((r) => (release = r));
  const idx = await TrajectoryIndex.open(file, { firstChunk: true, restAfter });
  const first = idx.meta("f").bytes;
  assert.ok(first > 0 && first < size, `${first} of ${size} bytes after the first chunk`);
  // Held: however long it waits, no more of the file is read.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(idx.meta("f").bytes, first);
  assert.ok(idx.scanning);
  release();
  await idx.whenIndexed();
  assert.equal(idx.meta("f").bytes, size);
  assert.ok(!idx.scanning);
});

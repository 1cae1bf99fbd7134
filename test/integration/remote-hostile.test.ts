import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { after, before, test } from "node:test";
import tar from "tar-stream";
import type { Problem } from "../../src/core/model/problem";
import { packDirectory } from "../../src/core/remote/bundle/bundle";
import { HOSTILE_CASES, writeHostileCase } from "../unit/environment/hostile-cases";
import { type StartedRunner, startRunner, waitFor } from "./remote-helpers";

/** The hostile corpus uploaded to a real runner on loopback: each a 400 naming file and line, none a 500 or a stall. */
let runner: StartedRunner;
let data: string;
const JOB = JSON.stringify({ config: { policy: { kind: "oracle" } } });
/** Generous per-case watchdog: an answer later than this is a hang. */
const WATCHDOG_MS = 180_000;

before(async () => {
  data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-hostile-"));
  runner = await startRunner(data);
});
after(async () => {
  await runner?.stop();
  rmSync(data, { recursive: true, force: true });
});

async function toBuffer(s: Readable): Promise<Buffer> {
  const c: Buffer[] = [];
  for await (const x of s) c.push(x as Buffer);
  return Buffer.concat(c);
}

async function post(body: Buffer): Promise<{ status: number; json: { error?: string; problems?: Problem[] } }> {
  const res = await fetch(`${runner.url}/v1/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${runner.token}`, "Content-Type": "application/x-tar" },
    body,
    signal: AbortSignal.timeout(WATCHDOG_MS),
  });
  return { status: res.status, json: (await res.json()) as { error?: string; problems?: Problem[] } };
}

async function bundleOf(c: (typeof HOSTILE_CASES)[number]): Promise<Buffer> {
  const { dir, cleanup } = writeHostileCase(c);
  try {
    return await toBuffer(packDirectory(dir, "env", { "job.json": JOB }));
  } finally {
    cleanup();
  }
}

const tmpFolders = () => (existsSync(path.join(data, "tmp")) ? readdirSync(path.join(data, "tmp")) : []);

for (const c of HOSTILE_CASES.filter((x) => !x.limits && !x.localOnly)) {
  test(`upload of a hostile environment: ${c.name}: 400 with a positioned problem`, async () => {
    const r = await post(await bundleOf(c));
    assert.equal(r.status, 400, JSON.stringify(r.json).slice(0, 500));
    const problems = r.json.problems ?? [];
    assert.ok(
      problems.some((p) => p.file === c.expect.file && p.line === c.expect.line && c.expect.message.test(p.message)),
      `expected ${c.expect.file}:${c.expect.line} ${c.expect.message}; got ${JSON.stringify(problems.slice(0, 3)).slice(0, 800)}`,
    );
    assert.match(r.json.error ?? "", /^environment does not load: /);
    assert.deepEqual(tmpFolders(), []);
  });
}

test("a FIFO in a bundle is refused with 400 naming the entry", async () => {
  const pack = tar.pack();
  pack.entry({ name: "job.json" }, JOB);
  pack.entry({ name: "env/tasks.jsonl", type: "fifo" });
  pack.finalize();
  const r = await post(await toBuffer(pack as unknown as Readable));
  assert.equal(r.status, 400);
  assert.match(r.json.error ?? "", /env\/tasks\.jsonl.*fifo entries are not allowed/);
});

test("while a big bad bundle validates, another request is answered before the validation ends", async () => {
  const big = HOSTILE_CASES.find((c) => c.name.startsWith("1.8 MB"));
  assert.ok(big);
  const body = await bundleOf(big);
  const order: string[] = [];
  const upload = post(body).then((r) => {
    order.push("upload answered");
    return r;
  });
  // Once the tasks file sits whole in the staging folder, the upload is unpacked and validating.
  const expected = Buffer.byteLength(big.files()["tasks.jsonl"] as string);
  await waitFor(
    "the upload to be unpacked",
    () => {
      for (const id of tmpFolders()) {
        const f = path.join(data, "tmp", id, "env", "tasks.jsonl");
        if (existsSync(f) && statSync(f).size === expected) return true;
      }
      return undefined;
    },
    WATCHDOG_MS,
    5,
  );
  const list = await fetch(`${runner.url}/v1/jobs`, {
    headers: { Authorization: `Bearer ${runner.token}` },
    signal: AbortSignal.timeout(WATCHDOG_MS),
  });
  order.push("status answered");
  assert.equal(list.status, 200);
  const r = await upload;
  assert.equal(r.status, 400);
  assert.ok((r.json.problems ?? []).length > 1000, "the capped problem list of the big bundle");
  assert.deepEqual(order, ["status answered", "upload answered"]);
});

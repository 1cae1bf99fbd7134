import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import tar from "tar-stream";
import { makeFixtureEnv, type StartedRunner, startRunner } from "./remote-helpers";

/** The runner's refusals, over real HTTP on loopback: auth, hostile tars, sizes, bad specs. */
let runner: StartedRunner;
let data: string;

before(async () => {
  data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-api-"));
  runner = await startRunner(data, ["--max-upload-mb", "1"]);
});
after(async () => {
  await runner?.stop();
  rmSync(data, { recursive: true, force: true });
});

const jobFolders = () => (existsSync(path.join(data, "jobs")) ? readdirSync(path.join(data, "jobs")) : []);
const tmpFolders = () => (existsSync(path.join(data, "tmp")) ? readdirSync(path.join(data, "tmp")) : []);

async function post(
  body: Buffer,
  token: string | null = runner.token,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: { error?: string; field?: string } }> {
  const res = await fetch(`${runner.url}/v1/jobs`, {
    method: "POST",
    headers: { "Content-Type": "application/x-tar", ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as { error?: string } };
}

async function tarBuffer(
  entries: Array<{ name: string; body?: string; type?: "file" | "symlink" | "directory"; linkname?: string }>,
): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries)
    pack.entry({ name: e.name, type: e.type ?? "file", ...(e.linkname ? { linkname: e.linkname } : {}) }, e.body ?? "");
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as Readable) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

test("the token file is 0600 and every route needs the token", async () => {
  const { statSync } = await import("node:fs");
  assert.equal(statSync(path.join(data, "token")).mode & 0o777, 0o600);
  for (const route of ["/v1/health", "/v1/jobs", "/metrics", "/v1/jobs/nope/events"]) {
    const missing = await fetch(`${runner.url}${route}`);
    assert.equal(missing.status, 401, route);
    assert.match(missing.headers.get("www-authenticate") ?? "", /Bearer/);
    assert.match(((await missing.json()) as { error: string }).error, /missing bearer token/);
    // Change the last character to a different one (a fixed "A" equals the token 1 time in 64).
    const last = runner.token.slice(-1) === "A" ? "B" : "A";
    const wrong = await fetch(`${runner.url}${route}`, { headers: { Authorization: `Bearer ${runner.token.slice(0, -1)}${last}` } });
    assert.equal(wrong.status, 401, route);
    assert.match(((await wrong.json()) as { error: string }).error, /wrong token/);
  }
  const ok = await fetch(`${runner.url}/v1/health`, { headers: { Authorization: `Bearer ${runner.token}` } });
  assert.equal(ok.status, 200);
  const health = (await ok.json()) as { ok: boolean; executors: string[]; gpus: unknown[] };
  assert.equal(health.ok, true);
  assert.deepEqual(health.executors, ["local"]);
});

test("a submit with a wrong or missing token writes nothing", async () => {
  const body = await tarBuffer([{ name: "job.json", body: "{}" }]);
  assert.equal((await post(body, null)).status, 401);
  assert.equal((await post(body, "not-the-token")).status, 401);
  assert.deepEqual(jobFolders(), []);
  assert.deepEqual(tmpFolders(), []);
});

test("a tar with ../ entries is refused with 400 and nothing written", async () => {
  const r = await post(
    await tarBuffer([
      { name: "job.json", body: "{}" },
      { name: "../../escaped.txt", body: "pwned" },
    ]),
  );
  assert.equal(r.status, 400);
  assert.match(r.json.error ?? "", /refused: `\.\.` in the path/);
  assert.deepEqual(jobFolders(), []);
  assert.deepEqual(tmpFolders(), []);
  assert.equal(existsSync(path.join(data, "escaped.txt")), false);
  assert.equal(existsSync(path.join(path.dirname(data), "escaped.txt")), false);
});

test("a tar with a symlink out is refused with 400", async () => {
  const r = await post(await tarBuffer([{ name: "env/x", type: "symlink", linkname: "/etc/shadow" }]));
  assert.equal(r.status, 400);
  assert.match(r.json.error ?? "", /symlink entries are not allowed/);
  assert.deepEqual(tmpFolders(), []);
});

test("an oversized upload is refused with 413 and nothing written", async () => {
  // Over the 1 MiB limit by its Content-Length: refused before reading.
  const big = Buffer.alloc(2 * 1024 * 1024, 1);
  const r = await post(big);
  assert.equal(r.status, 413);
  assert.match(r.json.error ?? "", /larger than the limit/);
  // Streamed without a length (chunked): cut off at the limit.
  const chunks = Readable.from(
    (function* () {
      for (let i = 0; i < 40; i++) yield Buffer.alloc(64 * 1024, 0);
    })(),
  );
  const res = await fetch(`${runner.url}/v1/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${runner.token}` },
    body: Readable.toWeb(chunks) as ReadableStream,
    duplex: "half",
  } as RequestInit);
  // The rest of the body is read and discarded (a lingering close), so the client gets
  // the answer rather than a reset connection.
  assert.equal(res.status, 413);
  assert.match(((await res.json()) as { error: string }).error, /upload larger than/);
  assert.deepEqual(jobFolders(), []);
  assert.deepEqual(tmpFolders(), []);
});

test("a bad job.json names the field; a broken environment names file and line", async () => {
  const envDir = makeFixtureEnv(1, 0);
  const { packDirectory } = await import("../../src/core/remote/bundle/bundle");
  const toBuf = async (s: Readable) => {
    const c: Buffer[] = [];
    for await (const x of s) c.push(x as Buffer);
    return Buffer.concat(c);
  };
  const bad = await post(
    await toBuf(packDirectory(envDir, "env", { "job.json": JSON.stringify({ config: { policy: { kind: "bogus" } } }) })),
  );
  assert.equal(bad.status, 400);
  assert.match(bad.json.error ?? "", /config\.policy\.kind/);
  assert.equal(bad.json.field, "config.policy.kind");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(path.join(envDir, "environment.yaml"), "name: x\ndomain: nope\ntasks: tasks.jsonl\n");
  const broken = await post(
    await toBuf(packDirectory(envDir, "env", { "job.json": JSON.stringify({ config: { policy: { kind: "oracle" } } }) })),
  );
  assert.equal(broken.status, 400);
  assert.match(broken.json.error ?? "", /environment does not load: environment\.yaml:2:/);
  assert.deepEqual(jobFolders(), []);
  assert.deepEqual(tmpFolders(), []);
});

test("unknown jobs answer 404 and /metrics speaks Prometheus text", async () => {
  const auth = { Authorization: `Bearer ${runner.token}` };
  assert.equal((await fetch(`${runner.url}/v1/jobs/nope`, { headers: auth })).status, 404);
  const m = await fetch(`${runner.url}/metrics`, { headers: auth });
  assert.equal(m.status, 200);
  const text = await m.text();
  assert.match(text, /^# TYPE rlenv_jobs gauge$/m);
  assert.match(text, /^rlenv_jobs\{state="running"\} 0$/m);
  assert.match(text, /^rlenv_rollouts_per_second 0$/m);
  assert.match(text, /^rlenv_gpu_utilisation /m);
});

// Last in this file: it leaves a job behind, which the tests above check there is none of.
test("a retried submit is answered only once its upload has arrived whole (no EPIPE under the client's writes)", async () => {
  const envDir = makeFixtureEnv(1, 0);
  const { packDirectory } = await import("../../src/core/remote/bundle/bundle");
  const chunks: Buffer[] = [];
  for await (const x of packDirectory(envDir, "env", {
    "job.json": JSON.stringify({ config: { policy: { kind: "oracle" }, sandbox: "process" } }),
  }))
    chunks.push(x as Buffer);
  const body = Buffer.concat(chunks);
  const key = `retry-${Date.now()}`;
  const first = await post(body, runner.token, { "Idempotency-Key": key });
  assert.equal(first.status, 201);
  // The retry sends half its upload, pauses, then the rest: a runner that answered from the
  // key alone would have answered, and closed the connection, during the pause.
  const { request } = await import("node:http");
  let sentAll = false;
  const answer = await new Promise<{ status: number; afterUpload: boolean; json: { id?: string } }>((resolve, reject) => {
    const req = request(
      `${runner.url}/v1/jobs`,
      {
        method: "POST",
        agent: false,
        headers: {
          Authorization: `Bearer ${runner.token}`,
          "Content-Type": "application/x-tar",
          "Idempotency-Key": key,
          "Content-Length": String(body.length),
        },
      },
      (res) => {
        const afterUpload = sentAll;
        const got: Buffer[] = [];
        res.on("data", (c: Buffer) => got.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, afterUpload, json: JSON.parse(Buffer.concat(got).toString("utf8")) as { id?: string } }),
        );
      },
    );
    req.on("error", reject);
    req.write(body.subarray(0, body.length >> 1));
    setTimeout(() => {
      req.end(body.subarray(body.length >> 1), () => {
        sentAll = true;
      });
    }, 300);
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.afterUpload, true, "answered before the upload was whole");
  assert.equal(answer.json.id, (first.json as { id?: string }).id);
});

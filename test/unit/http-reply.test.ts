import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { BundleError } from "../../src/core/remote/bundle/bundle";
import { HttpError, replyWithError } from "../../src/core/remote/server/http-reply";
import { JobSpecError } from "../../src/core/remote/jobs/job-intake";

// The runner's error answers, over a real loopback server: each error class keeps its status
// and the fields a client reads (error, field, problems).
const errors: Record<string, unknown> = {
  http: new HttpError(405, "PUT not allowed on /v1/jobs"),
  header: new HttpError(400, "Idempotency-Key: bad", "Idempotency-Key"),
  bundle: new BundleError("a ../ entry", 400),
  spec: new JobSpecError("job.json: samples must be positive", "samples", [
    { file: "job.json", line: 1, message: "samples must be positive", severity: "error" } as never,
  ]),
  unexpected: new Error("disk on fire"),
};

let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer((req, res) => replyWithError(errors[(req.url ?? "/").slice(1)], req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(name: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${base}/${name}`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

describe("replyWithError", () => {
  test("an HttpError keeps its status, and its field when it names one", async () => {
    assert.deepEqual(await get("http"), { status: 405, body: { error: "PUT not allowed on /v1/jobs" } });
    assert.deepEqual(await get("header"), { status: 400, body: { error: "Idempotency-Key: bad", field: "Idempotency-Key" } });
  });

  test("a bad bundle is its own status; a bad job spec is 400 with its field and problems", async () => {
    assert.deepEqual(await get("bundle"), { status: 400, body: { error: "a ../ entry" } });
    const spec = await get("spec");
    assert.equal(spec.status, 400);
    assert.equal(spec.body.field, "samples");
    assert.equal((spec.body.problems as unknown[]).length, 1);
  });

  test("anything else is a 500 with its message", async () => {
    assert.deepEqual(await get("unexpected"), { status: 500, body: { error: "disk on fire" } });
  });
});

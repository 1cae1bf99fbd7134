import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { after, before, test } from "node:test";
import tar from "tar-stream";
import { packDirectory } from "../../src/core/remote/bundle/bundle";
import { makeFixtureEnv, type StartedRunner, startRunner } from "./remote-helpers";

/**
 * The runner's edges: archives whose paths collide, uploads that stall or trickle, and a job whose
 * policy cannot run. Each is refused or cut off while the runner goes on answering.
 */
let runner: StartedRunner;
let data: string;

before(async () => {
  data = mkdtempSync(path.join(tmpdir(), "rlenv-runner-edges-"));
  runner = await startRunner(data, ["--idle-timeout-s", "1", "--request-timeout-s", "3"]);
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

async function post(body: Buffer): Promise<{ status: number; error: string }> {
  const res = await fetch(`${runner.url}/v1/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${runner.token}`, "Content-Type": "application/x-tar" },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, error: ((await res.json()) as { error?: string }).error ?? "" };
}

/** The runner process is alive and answering. */
async function stillAnswers(): Promise<void> {
  assert.equal(runner.proc.exitCode, null, `the runner exited:\n${runner.output.join("\n")}`);
  const res = await fetch(`${runner.url}/v1/status`, { headers: { Authorization: `Bearer ${runner.token}` } });
  assert.equal(res.status, 200);
}

function tarOf(entries: Array<{ name: string; type?: "file" | "directory"; body?: string }>): Promise<Buffer> {
  const pack = tar.pack();
  for (const { body, ...header } of entries) pack.entry({ mode: 0o644, ...header }, body ?? "");
  pack.finalize();
  return toBuffer(pack as unknown as Readable);
}

const collisions: Array<[string, Array<{ name: string; type?: "file" | "directory"; body?: string }>]> = [
  [
    "a file, then a folder of the same name",
    [
      { name: "env/a", body: "x" },
      { name: "env/a/", type: "directory" },
    ],
  ],
  [
    "a file, then a file beneath it",
    [
      { name: "env/a", body: "x" },
      { name: "env/a/b", body: "y" },
    ],
  ],
  [
    "a file given twice",
    [
      { name: "env/a", body: "x" },
      { name: "env/a", body: "y" },
    ],
  ],
  [
    "a folder, then a file of the same name",
    [
      { name: "env/a/", type: "directory" },
      { name: "env/a", body: "x" },
    ],
  ],
];

for (const [name, entries] of collisions) {
  test(`a bundle with ${name}: 400 naming the entry, and the runner goes on`, async () => {
    const r = await post(await tarOf([{ name: "job.json", body: JSON.stringify({ config: { policy: { kind: "oracle" } } }) }, ...entries]));
    assert.equal(r.status, 400, r.error);
    assert.match(r.error, /bundle entry "env\/a(\/b)?\/?" refused/);
    await stillAnswers();
  });
}

test("a job whose openai policy names no model: refused at submit with the field", async () => {
  const env = makeFixtureEnv(1, null);
  const job = JSON.stringify({ config: { policy: { kind: "openai", base_url: "http://127.0.0.1:9/v1" } } });
  const r = await post(await toBuffer(packDirectory(env, "env", { "job.json": job })));
  assert.equal(r.status, 400, r.error);
  assert.match(r.error, /config\.policy\.model: policy openai needs a model/);
  await stillAnswers();
});

/** Opens a raw connection, sends `head` and then whatever `trickle` writes; resolves with what the runner sent when it closed the connection. */
function upload(head: string, trickle?: (socket: net.Socket) => NodeJS.Timeout): Promise<string> {
  const { hostname, port } = new URL(runner.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const got: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    // A watchdog, not a timing: before the bound, such a connection stayed open for good.
    const watchdog = setTimeout(() => {
      socket.destroy();
      reject(new Error("the runner kept a stalled upload open for 60 s"));
    }, 60_000);
    socket.on("connect", () => {
      socket.write(head);
      if (trickle) timer = trickle(socket);
    });
    socket.on("data", (d) => got.push(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(watchdog);
      if (timer) clearInterval(timer);
      resolve(Buffer.concat(got).toString("utf8"));
    });
  });
}

const uploadHead = (length: number) =>
  `POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${runner.token}\r\nContent-Type: application/x-tar\r\nContent-Length: ${length}\r\n\r\n`;

test("an upload that stops sending is closed by the runner", async () => {
  await upload(`${uploadHead(100_000)}${"x".repeat(512)}`);
  await stillAnswers();
});

test("an upload that trickles a byte at a time, never idle, is closed when its request time is up", async () => {
  const sent = await upload(uploadHead(100_000), (socket) => setInterval(() => socket.write("x"), 200));
  assert.match(sent, /^HTTP\/1\.1 408/);
  await stillAnswers();
});

test("headers that never end are closed too", async () => {
  await upload(`POST /v1/jobs HTTP/1.1\r\nHost: x\r\n`);
  await stillAnswers();
});

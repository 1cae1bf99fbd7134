import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  type S3Client,
} from "@aws-sdk/client-s3";
import { RunnerClient } from "../../src/core/remote/client/client";
import { s3ClientFromEnv } from "../../src/core/runs/object-store/client";
import { MANIFEST_NAME, uploadFolder } from "../../src/core/runs/object-store/upload-folder";
import { missing } from "../support/services";
import { makeFixtureEnv, REPO, RLENV, startRunner, waitFor } from "./remote-helpers";

/**
 * Runs in an S3-compatible store (the loopback server of test/setup/s3.sh): streamed
 * multipart uploads with content hashes, a SIGKILL in the middle of one, and `--runs
 * s3://…` on `run`, `pull` and the runner.
 */
const skip = missing("s3");
const storeEnv = {
  RLENV_S3_ENDPOINT: process.env.RLENV_S3_ENDPOINT ?? "",
  AWS_ACCESS_KEY_ID: process.env.RLENV_S3_ACCESS_KEY ?? "",
  AWS_SECRET_ACCESS_KEY: process.env.RLENV_S3_SECRET_KEY ?? "",
  AWS_REGION: "us-east-1",
};
const PART = 5 * 1024 * 1024;
let client: S3Client;
const cleanups: Array<() => Promise<void> | void> = [];
before(() => {
  if (skip) return;
  // Credentials reach the SDK from the environment, as they would for a user.
  Object.assign(process.env, storeEnv);
  client = s3ClientFromEnv();
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  client?.destroy();
});

function tmp(prefix: string): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function freshBucket(): Promise<string> {
  const bucket = `rlenv-test-${randomBytes(6).toString("hex")}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

async function keys(bucket: string, prefix = ""): Promise<string[]> {
  const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, ...(prefix ? { Prefix: prefix } : {}) }));
  return (r.Contents ?? []).map((o) => o.Key ?? "").sort();
}

async function body(bucket: string, key: string): Promise<Buffer> {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from((await r.Body?.transformToByteArray()) ?? []);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A run-like folder: a few small files and one of `bigBytes` (several multipart parts). */
function makeFolder(bigBytes: number, bigName = "big.bin"): string {
  const dir = tmp("rlenv-s3-folder-");
  mkdirSync(path.join(dir, "rollouts"));
  writeFileSync(path.join(dir, "run.json"), '{"id":"r1"}\n');
  for (let i = 0; i < 3; i++) writeFileSync(path.join(dir, "rollouts", `t${i}.jsonl`), `{"type":"start","i":${i}}\n`);
  writeFileSync(path.join(dir, bigName), randomBytes(bigBytes));
  return dir;
}

test("a folder uploads streamed with sha256 in each object's metadata; a second upload sends nothing, a changed file alone goes again", {
  skip,
}, async () => {
  const bucket = await freshBucket();
  const dir = makeFolder(3 * PART + 1234);
  const first = await uploadFolder(client, dir, { bucket, prefix: "runs/r1" }, { partSize: PART });
  assert.deepEqual(first.uploaded.sort(), ["big.bin", "rollouts/t0.jsonl", "rollouts/t1.jsonl", "rollouts/t2.jsonl", "run.json"]);
  assert.deepEqual(first.skipped, []);
  const big = readFileSync(path.join(dir, "big.bin"));
  assert.equal(sha256(await body(bucket, "runs/r1/big.bin")), sha256(big));
  const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: "runs/r1/big.bin" }));
  assert.equal(head.Metadata?.sha256, sha256(big));
  const manifest = JSON.parse((await body(bucket, `runs/r1/${MANIFEST_NAME}`)).toString("utf8")) as {
    files: Array<{ path: string; size: number; sha256: string }>;
  };
  assert.deepEqual(
    manifest.files.find((f) => f.path === "big.bin"),
    { path: "big.bin", size: big.length, sha256: sha256(big) },
  );

  const second = await uploadFolder(client, dir, { bucket, prefix: "runs/r1" }, { partSize: PART });
  assert.deepEqual(second.uploaded, []);
  assert.equal(second.skipped.length, 5);

  // Same size, other bytes: the hash, not the size, decides.
  writeFileSync(path.join(dir, "rollouts", "t1.jsonl"), '{"type":"start","i":9}\n');
  const third = await uploadFolder(client, dir, { bucket, prefix: "runs/r1" }, { partSize: PART });
  assert.deepEqual(third.uploaded, ["rollouts/t1.jsonl"]);
  assert.equal((await body(bucket, "runs/r1/rollouts/t1.jsonl")).toString(), '{"type":"start","i":9}\n');
});

test("a SIGKILL in the middle of a multipart upload leaves no partial object; the resumed upload sends only what is missing", {
  skip,
}, async () => {
  const bucket = await freshBucket();
  const dir = makeFolder(4 * PART, "z-big.bin");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "object-store-kill-child.ts"), dir, bucket, "runs/killed", String(PART)],
    { cwd: REPO, env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((r) => child.on("exit", (_code, sig) => r(sig)));
  assert.equal(signal, "SIGKILL", out);
  assert.match(out, /killing at \d+ of \d+/);

  // The files before z-big.bin (one file at a time, in name order) are whole; z-big.bin, whose
  // first part was sent, and the manifest are not there at all.
  const small = ["rollouts/t0.jsonl", "rollouts/t1.jsonl", "rollouts/t2.jsonl", "run.json"];
  assert.deepEqual(
    await keys(bucket, "runs/killed/"),
    small.map((f) => `runs/killed/${f}`),
  );
  await assert.rejects(client.send(new HeadObjectCommand({ Bucket: bucket, Key: "runs/killed/z-big.bin" })), NotFound);
  await assert.rejects(client.send(new GetObjectCommand({ Bucket: bucket, Key: "runs/killed/z-big.bin" })));

  const resumed = await uploadFolder(client, dir, { bucket, prefix: "runs/killed" }, { partSize: PART });
  assert.deepEqual(resumed.uploaded, ["z-big.bin"]);
  assert.deepEqual(resumed.skipped.sort(), small);
  assert.equal(sha256(await body(bucket, "runs/killed/z-big.bin")), sha256(readFileSync(path.join(dir, "z-big.bin"))));
  assert.ok((await keys(bucket, "runs/killed/")).includes(`runs/killed/${MANIFEST_NAME}`));
});

const run = promisify(execFile);

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk("");
  return out.sort();
}

test("rlenv run --runs s3://bucket/prefix: the finished run is in the store, and the credentials are nowhere in it", { skip }, async () => {
  const bucket = await freshBucket();
  const staging = tmp("rlenv-s3-staging-");
  const [node, ...pre] = RLENV;
  const { stdout } = await run(
    node ?? process.execPath,
    [...pre, "run", makeFixtureEnv(2, null), "--policy", "oracle", "--sandbox", "process", "--runs", `s3://${bucket}/team/runs`],
    { cwd: REPO, env: { ...process.env, RLENV_S3_STAGING: staging } },
  );
  const url = stdout.trim().split("\n").at(-1) ?? "";
  const m = new RegExp(`^s3://${bucket}/team/runs/([^/]+)$`).exec(url);
  assert.ok(m?.[1], stdout);
  const runId = m[1];
  const stored = await keys(bucket, `team/runs/${runId}/`);
  for (const f of ["run.json", "summary.json", MANIFEST_NAME])
    assert.ok(stored.includes(`team/runs/${runId}/${f}`), `${f} missing from ${stored.join(", ")}`);
  assert.equal(stored.filter((k) => /\/rollouts\/[^/]+\.jsonl$/.test(k)).length, 2);
  // Byte for byte the staged run folder, which holds no credential.
  const staged = readdirSync(staging).map((d) => path.join(staging, d, runId))[0] ?? "";
  for (const f of filesUnder(staged)) {
    const local = readFileSync(path.join(staged, f));
    assert.ok(!local.includes(storeEnv.AWS_SECRET_ACCESS_KEY), `${f} holds the secret key`);
    assert.ok(!local.includes(storeEnv.AWS_ACCESS_KEY_ID), `${f} holds the access key id`);
    assert.equal(sha256(await body(bucket, `team/runs/${runId}/${f}`)), sha256(local), f);
  }
});

test("a runner with --runs s3://… keeps each finished job's run in the store; rlenv pull --runs s3://… uploads what it pulled", {
  skip,
}, async () => {
  const bucket = await freshBucket();
  const data = tmp("rlenv-s3-runner-");
  // %H is this host's name: runners sharing a bucket keep apart.
  const runner = await startRunner(data, ["--runs", `s3://${bucket}/fleet/%H`]);
  cleanups.push(async () => {
    if (runner.proc.exitCode === null) await runner.stop();
  });
  const api = new RunnerClient({ url: runner.url, token: runner.token });
  const { job } = await api.submit(makeFixtureEnv(3, 0), {
    config: { policy: { kind: "oracle" }, k: 1, concurrency: 2, sandbox: "process" },
  });
  await api.followEvents(job.id, () => {});
  const done = await api.job(job.id);
  assert.equal(done.state, "completed");
  const prefix = `fleet/${hostname()}/${done.run_id}/`;
  // The manifest goes last: once it is there, so is the rest.
  const stored = await waitFor(`${prefix}${MANIFEST_NAME} (runner log: ${runner.output.join("\n")})`, async () => {
    const k = await keys(bucket, prefix);
    return k.includes(`${prefix}${MANIFEST_NAME}`) ? k : undefined;
  });
  assert.equal(stored.filter((k) => /\/rollouts\/[^/]+\.jsonl$/.test(k)).length, 3);
  assert.ok(stored.includes(`${prefix}summary.json`));

  const [node, ...pre] = RLENV;
  const { stdout } = await run(
    node ?? process.execPath,
    [...pre, "pull", job.id, "--runner", runner.url, "--runs", `s3://${bucket}/pulled`],
    { cwd: REPO, env: { ...process.env, RLENV_RUNNER_TOKEN: runner.token, RLENV_S3_STAGING: tmp("rlenv-s3-pull-") } },
  );
  assert.equal(stdout.trim(), `s3://${bucket}/pulled/${done.run_id}`);
  const pulled = await keys(bucket, `pulled/${done.run_id}/`);
  assert.deepEqual(
    pulled.map((k) => k.slice(`pulled/${done.run_id}/`.length)),
    stored.map((k) => k.slice(prefix.length)),
  );
});

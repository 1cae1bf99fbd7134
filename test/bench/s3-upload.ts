/**
 * Upload throughput of a run folder to an S3-compatible store on loopback, against `cp -r`
 * of the same folder on the same disk, in the same run:
 * `npx tsx test/bench/s3-upload.ts` (1 GB; RLENV_BENCH_S3_MB=100 for a quick run).
 *
 * The folder is shaped like a big run: half of it in 256 KB rollout files (thousands of
 * small objects, each a PutObject), half in 32 MB files (multipart, 8 MiB parts). The store
 * is s3rver (the test setup's server): RLENV_S3_ENDPOINT when set, else one started here on
 * loopback with its data on the same disk as the copy. Measured: `cp -r` (baseline), the
 * first upload (every file hashed and sent), and a second upload of the unchanged folder
 * (every file hashed and found in the store, nothing sent). Prints MB/s and ratios; asserts
 * nothing about time.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { s3ClientFromEnv } from "../../src/core/runs/object-store/client";
import { uploadFolder } from "../../src/core/runs/object-store/upload-folder";

const MB = 1024 * 1024;
const TOTAL_MB = Number(process.env.RLENV_BENCH_S3_MB ?? 1024);
const SMALL = 256 * 1024;
const LARGE = 32 * MB;
/** Files in flight at once (the uploader's default is 4). */
const FILES = Number(process.env.RLENV_BENCH_S3_FILES ?? 4);

/** Rollout-like JSONL (text, as trajectories are) of `bytes` bytes. */
function jsonl(bytes: number): Buffer {
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    const line = `${JSON.stringify({ type: "observation", seq: lines.length, output: randomBytes(300).toString("base64") })}\n`;
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join("")).subarray(0, bytes);
}

function makeRun(dir: string): number {
  mkdirSync(path.join(dir, "rollouts"), { recursive: true });
  mkdirSync(path.join(dir, "artifacts"), { recursive: true });
  writeFileSync(path.join(dir, "run.json"), '{"id":"bench"}\n');
  const half = (TOTAL_MB * MB) / 2;
  const small = jsonl(SMALL);
  let bytes = 0;
  for (let i = 0; bytes < half; i++) {
    // Each file its own first line: no two objects alike.
    writeFileSync(path.join(dir, "rollouts", `r${i}.jsonl`), Buffer.concat([Buffer.from(`{"i":${i}}\n`), small]));
    bytes += small.length + 10;
  }
  const large = jsonl(LARGE);
  for (let i = 0; bytes < TOTAL_MB * MB; i++) {
    writeFileSync(path.join(dir, "artifacts", `a${i}.jsonl`), Buffer.concat([Buffer.from(`{"i":${i}}\n`), large]));
    bytes += large.length + 10;
  }
  return bytes;
}

async function startStore(root: string): Promise<{ endpoint: string; stop: () => void }> {
  if (process.env.RLENV_S3_ENDPOINT) return { endpoint: process.env.RLENV_S3_ENDPOINT, stop: () => {} };
  const port = 20000 + Math.floor(Math.random() * 20000);
  const bin = path.resolve(__dirname, "../../node_modules/s3rver/bin/s3rver.js");
  // Its log beside the data (RLENV_BENCH_S3_LOG keeps it elsewhere): a failed request says why there.
  // The legacy provider: s3rver's listing past 1000 keys uses DES, which OpenSSL 3 leaves out.
  const log = openSync(process.env.RLENV_BENCH_S3_LOG || path.join(root, "s3rver.log"), "w");
  const proc = spawn(
    process.execPath,
    ["--openssl-legacy-provider", bin, "-d", path.join(root, "s3"), "-a", "127.0.0.1", "-p", String(port)],
    {
      stdio: ["ignore", log, log],
    },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${endpoint}/`).catch(() => null))?.ok) return { endpoint, stop: () => proc.kill() };
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error(`s3rver did not answer on ${endpoint}`);
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-bench-s3-"));
  let stopStore = () => {};
  try {
    const src = path.join(root, "run");
    const bytes = makeRun(src);
    const store = await startStore(root);
    stopStore = store.stop;
    process.env.RLENV_S3_ENDPOINT = store.endpoint;
    process.env.AWS_ACCESS_KEY_ID ||= process.env.RLENV_S3_ACCESS_KEY || "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY ||= process.env.RLENV_S3_SECRET_KEY || "S3RVER";
    const client = s3ClientFromEnv();
    const bucket = `rlenv-bench-${randomBytes(4).toString("hex")}`;
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    execFileSync("sync");

    let t = performance.now();
    execFileSync("cp", ["-r", src, path.join(root, "copy")]);
    execFileSync("sync");
    const cpS = (performance.now() - t) / 1000;

    t = performance.now();
    const first = await uploadFolder(client, src, { bucket, prefix: "runs/bench" }, { files: FILES });
    const upS = (performance.now() - t) / 1000;

    t = performance.now();
    const again = await uploadFolder(client, src, { bucket, prefix: "runs/bench" }, { files: FILES });
    const againS = (performance.now() - t) / 1000;
    client.destroy();
    store.stop();

    const mb = bytes / MB;
    const files = first.uploaded.length;
    console.log(`run folder: ${mb.toFixed(0)} MB in ${files} files (store ${store.endpoint})`);
    console.log(`cp -r          ${cpS.toFixed(2)} s  ${(mb / cpS).toFixed(0)} MB/s  (baseline)`);
    console.log(
      `upload         ${upS.toFixed(2)} s  ${(mb / upS).toFixed(0)} MB/s  ${(upS / cpS).toFixed(2)}× cp's time, ${(cpS / upS).toFixed(2)}× cp's throughput`,
    );
    console.log(
      `re-upload      ${againS.toFixed(2)} s  ${(mb / againS).toFixed(0)} MB/s  ${(againS / cpS).toFixed(2)}× cp's time (${again.skipped.length} skipped, ${again.uploaded.length} sent)`,
    );
  } finally {
    stopStore();
    rmSync(root, { recursive: true, force: true });
  }
}

void main();

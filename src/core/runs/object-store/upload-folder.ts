import { createHash } from "node:crypto";
import { createReadStream, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import {
  AbortMultipartUploadCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { formatS3Url, keyUnder, type S3Location } from "./location";

/** The object written last: its presence says every file of the folder is in the store. */
export const MANIFEST_NAME = ".rlenv-manifest.json";
/** The object metadata key holding a file's sha256 (x-amz-meta-sha256 on the wire). */
export const SHA256_META = "sha256";

export interface UploadOptions {
  /** Bytes per multipart part (S3's minimum is 5 MiB). */
  partSize?: number;
  /** Parts of one file in flight at once. */
  queueSize?: number;
  /** Files in flight at once. */
  files?: number;
  signal?: AbortSignal;
  onProgress?: (e: { file: string; loaded: number; total: number }) => void;
}

export interface UploadReport {
  url: string;
  /** Paths (relative, with /) sent to the store. */
  uploaded: string[];
  /** Paths already in the store with the same sha256: not sent again. */
  skipped: string[];
  bytes: number;
}

export interface ManifestEntry {
  path: string;
  size: number;
  sha256: string;
}

const DEFAULT_PART = 8 * 1024 * 1024;

/**
 * Uploads a folder's files under `loc`, streamed from disk: a file larger than a part goes
 * as a multipart upload (only `queueSize` parts in memory at once), so a run of any size
 * never sits in memory whole. Each object carries its file's sha256 in its metadata, and a
 * file whose object is already there with the same size and sha256 is skipped: a second
 * upload, or one resumed after a crash, sends only what is missing. An object is visible
 * only once it is complete (S3 shows a multipart upload at its completion), so a killed
 * upload leaves no partial object; its orphaned parts are aborted at the next upload.
 * The manifest (each file's path, size and sha256) is written last.
 */
export async function uploadFolder(client: S3Client, localDir: string, loc: S3Location, opts: UploadOptions = {}): Promise<UploadReport> {
  const files = listFiles(localDir);
  const existing = await listSizes(client, loc);
  await abortStaleUploads(client, loc);
  const report: UploadReport = { url: formatS3Url(loc), uploaded: [], skipped: [], bytes: 0 };
  const manifest: ManifestEntry[] = [];
  let next = 0;
  const worker = async () => {
    for (;;) {
      opts.signal?.throwIfAborted();
      const rel = files[next++];
      if (rel === undefined) return;
      const abs = path.join(localDir, rel);
      const key = keyUnder(loc.prefix, rel);
      const { size, sha256 } = await hashFile(abs);
      manifest.push({ path: rel, size, sha256 });
      if (existing.get(key) === size && (await storedSha256(client, loc.bucket, key)) === sha256) {
        report.skipped.push(rel);
        continue;
      }
      const upload = new Upload({
        client,
        params: { Bucket: loc.bucket, Key: key, Body: createReadStream(abs), ContentLength: size, Metadata: { [SHA256_META]: sha256 } },
        partSize: opts.partSize ?? DEFAULT_PART,
        queueSize: opts.queueSize ?? 2,
        leavePartsOnError: false,
        ...(opts.signal ? { abortController: abortControllerFor(opts.signal) } : {}),
      });
      if (opts.onProgress) upload.on("httpUploadProgress", (p) => opts.onProgress?.({ file: rel, loaded: p.loaded ?? 0, total: size }));
      await upload.done();
      report.uploaded.push(rel);
      report.bytes += size;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.files ?? 4) }, worker));
  manifest.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await client.send(
    new PutObjectCommand({
      Bucket: loc.bucket,
      Key: keyUnder(loc.prefix, MANIFEST_NAME),
      Body: `${JSON.stringify({ files: manifest }, null, 1)}\n`,
      ContentType: "application/json",
    }),
  );
  return report;
}

/**
 * Regular files under `dir`, relative with / separators, sorted. Links are followed (a
 * runner's merged run folder links its rollouts folder to the unit that wrote it); a link
 * back to a folder already walked is not walked again.
 */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    const real = realpathSync(abs);
    if (seen.has(real)) return;
    seen.add(real);
    for (const d of readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      const st = d.isSymbolicLink() ? statSync(path.join(dir, r), { throwIfNoEntry: false }) : d;
      if (!st) continue; // a dangling link
      if (st.isDirectory()) walk(r);
      else if (st.isFile() && r !== MANIFEST_NAME) out.push(r);
    }
  };
  if (!statSync(dir).isDirectory()) throw new Error(`${dir}: not a folder`);
  walk("");
  return out.sort();
}

async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: h.digest("hex") };
}

/** Key → size of every object under the prefix. */
async function listSizes(client: S3Client, loc: S3Location): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: loc.bucket,
        ...(loc.prefix ? { Prefix: `${loc.prefix}/` } : {}),
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const o of page.Contents ?? []) if (o.Key !== undefined) sizes.set(o.Key, o.Size ?? -1);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return sizes;
}

async function storedSha256(client: S3Client, bucket: string, key: string): Promise<string | undefined> {
  const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  return head.Metadata?.[SHA256_META];
}

/**
 * Multipart uploads under the prefix that a killed upload left open: their parts are
 * stored (and billed) but never visible. Aborted here; a store that cannot list them
 * (NotImplemented) leaves them to its own lifecycle rule.
 */
async function abortStaleUploads(client: S3Client, loc: S3Location): Promise<void> {
  let open: Array<{ Key?: string; UploadId?: string }>;
  try {
    const r = await client.send(
      new ListMultipartUploadsCommand({ Bucket: loc.bucket, ...(loc.prefix ? { Prefix: `${loc.prefix}/` } : {}) }),
    );
    open = r.Uploads ?? [];
  } catch (e) {
    if (
      (e as { name?: string }).name === "NotImplemented" ||
      (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 501
    )
      return;
    throw e;
  }
  for (const u of open)
    if (u.Key && u.UploadId) await client.send(new AbortMultipartUploadCommand({ Bucket: loc.bucket, Key: u.Key, UploadId: u.UploadId }));
}

function abortControllerFor(signal: AbortSignal): AbortController {
  const ac = new AbortController();
  if (signal.aborted) ac.abort(signal.reason);
  else signal.addEventListener("abort", () => ac.abort(signal.reason), { once: true });
  return ac;
}

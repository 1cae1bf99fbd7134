import { createHash } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import { isS3Url, keyUnder, parseS3Url, type S3Location } from "../../core/runs/object-store/location";

/**
 * Where `--runs` sends run folders: a local folder as it is, or `s3://bucket/prefix`. For
 * a store, the run is written to a local staging folder first (a run is many small
 * appends, which an object store cannot take) and uploaded when it ends, streamed, with
 * content hashes so what is already there is not sent again. The staging folder stays, so
 * `--resume` works on it and a second upload sends only what changed.
 */
export interface RunsTarget {
  /** The local folder the run folders are written in. */
  localDir: string;
  /** The store's place, for an s3:// target. */
  store?: S3Location;
  /** Uploads one run folder (a store only) and says where it went; undefined for a local target. */
  publish(runDir: string): Promise<string | undefined>;
}

export function runsTarget(runs: string): RunsTarget {
  if (!isS3Url(runs)) return { localDir: path.resolve(runs), publish: async () => undefined };
  const store = parseS3Url(runs);
  const staging =
    process.env.RLENV_S3_STAGING || path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "rlenv", "s3-staging");
  // One staging folder per bucket and prefix, named by a hash (a prefix may be long or hold odd characters).
  const localDir = path.join(staging, createHash("sha256").update(`${store.bucket}/${store.prefix}`).digest("hex").slice(0, 16));
  return {
    localDir,
    store,
    async publish(runDir: string): Promise<string> {
      // Loaded here: a local run never pays for the SDK.
      const [{ s3ClientFromEnv }, { uploadFolder }] = await Promise.all([
        import("../../core/runs/object-store/client"),
        import("../../core/runs/object-store/upload-folder"),
      ]);
      const loc = { bucket: store.bucket, prefix: keyUnder(store.prefix, path.basename(runDir)) };
      const client = s3ClientFromEnv();
      try {
        const r = await uploadFolder(client, runDir, loc);
        process.stderr.write(
          `uploaded ${r.uploaded.length} file${r.uploaded.length === 1 ? "" : "s"} (${(r.bytes / 1e6).toFixed(1)} MB) to ${r.url}${r.skipped.length ? `; ${r.skipped.length} already there` : ""}\n`,
        );
        return r.url;
      } finally {
        client.destroy();
      }
    },
  };
}

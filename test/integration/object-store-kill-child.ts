/**
 * Uploads a folder one file at a time and SIGKILLs itself once the first part of
 * `z-big.bin`'s multipart upload (the last file in name order) is stored: a crash in the
 * middle of a multipart upload, at a known point. Args: folder, bucket, prefix, part
 * size. The store comes from the environment.
 */
import { s3ClientFromEnv } from "../../src/core/runs/object-store/client";
import { uploadFolder } from "../../src/core/runs/object-store/upload-folder";

const [dir, bucket, prefix, part] = process.argv.slice(2);
if (!dir || !bucket || prefix === undefined || !part) throw new Error("usage: DIR BUCKET PREFIX PART_BYTES");
const partSize = Number(part);
void (async () => {
  await uploadFolder(
    s3ClientFromEnv(),
    dir,
    { bucket, prefix },
    {
      partSize,
      queueSize: 1,
      files: 1,
      onProgress: (e) => {
        if (e.file === "z-big.bin" && e.loaded >= partSize && e.loaded < e.total) {
          process.stdout.write(`killing at ${e.loaded} of ${e.total}\n`);
          process.kill(process.pid, "SIGKILL");
        }
      },
    },
  );
  process.stdout.write("finished without being killed\n");
})();

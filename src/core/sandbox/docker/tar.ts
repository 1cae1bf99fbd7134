import type { Readable } from "node:stream";
import tar from "tar-stream";
import { TreeBudget, unreadFile } from "../read-bounds";

/** A tar archive of files (paths relative to where it is unpacked), owned by uid:gid. */
export async function packFiles(files: Map<string, Buffer>, owner: { uid: number; gid: number }, mode = 0o644): Promise<Buffer> {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const p of files.keys()) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  for (const d of [...dirs].sort()) pack.entry({ name: d, type: "directory", mode: 0o755, uid: owner.uid, gid: owner.gid });
  for (const [name, content] of files) pack.entry({ name, mode, uid: owner.uid, gid: owner.gid }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * The regular files of a tar stream, keyed by their names with `stripPrefix` removed, within
 * `budget` (see read-bounds.ts): a file past its byte bounds reads as a stand-in naming its
 * size (its body skipped, never held), and past its file bound the stream is let go.
 */
export async function unpackFiles(stream: Readable, stripPrefix = "", budget = new TreeBudget()): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, body, next) => {
      const name = (header.name.startsWith(stripPrefix) ? header.name.slice(stripPrefix.length) : header.name).replace(/^\/+/, "");
      const file = header.type === "file";
      if (file && !budget.takeFile()) {
        // Enough: the rest of the archive is not read at all.
        stream.unpipe(extract);
        stream.destroy();
        resolve();
        return;
      }
      const size = header.size ?? 0;
      const why = file ? budget.refuse(size) : null;
      const chunks: Buffer[] = [];
      body.on("data", (c: unknown) => {
        if (file && !why) chunks.push(c as Buffer);
      });
      body.on("end", () => {
        if (file) out.set(name, why ? unreadFile(size, why) : Buffer.concat(chunks));
        next();
      });
      body.on("error", reject);
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
    stream.on("error", (e) => (budget.skipped > 0 ? resolve() : reject(e)));
  });
  stream.pipe(extract);
  await done;
  return out;
}

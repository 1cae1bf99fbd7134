import type { Readable } from "node:stream";
import tar from "tar-stream";

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

/** The regular files of a tar stream, keyed by their names with `stripPrefix` removed. */
export async function unpackFiles(stream: Readable, stripPrefix = ""): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, body, next) => {
      const chunks: Buffer[] = [];
      body.on("data", (c: unknown) => {
        chunks.push(c as Buffer);
      });
      body.on("end", () => {
        if (header.type === "file") {
          const name = header.name.startsWith(stripPrefix) ? header.name.slice(stripPrefix.length) : header.name;
          out.set(name.replace(/^\/+/, ""), Buffer.concat(chunks));
        }
        next();
      });
      body.on("error", reject);
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
    stream.on("error", reject);
  });
  stream.pipe(extract);
  await done;
  return out;
}

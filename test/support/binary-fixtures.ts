import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { deflateSync } from "node:zlib";

/** Binary files an author may put in a task: a SQLite database, a PNG, random bytes. */

/** A SQLite database made by python3's sqlite3 module (three rows in `items`). */
export function sqliteDb(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-db-"));
  try {
    const file = path.join(dir, "shop.db");
    execFileSync("python3", [
      "-c",
      "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table items(name text, price real, blob blob)'); c.executemany('insert into items values (?,?,?)', [('tea', 2.5, bytes(range(256))), ('café', 3.0, b'\\xff\\xfe\\x00'), ('pain', 1.25, None)]); c.commit()",
      file,
    ]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function crc32(b: Buffer): number {
  let c = ~0;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A real 16×16 RGB PNG with a gradient (its signature alone, 0x89 'PNG' \r\n 0x1a \n, is not UTF-8). */
export function png(): Buffer {
  const w = 16;
  const h = 16;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows: number[] = [];
  for (let y = 0; y < h; y++) {
    rows.push(0);
    for (let x = 0; x < w; x++) rows.push(x * 16, y * 16, 255 - x * 8);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Random bytes that are surely not UTF-8 text (a lone 0xff is never valid UTF-8). */
export function randomBin(n = 4096): Buffer {
  const b = randomBytes(n);
  b[0] = 0xff;
  b[1] = 0x00;
  return b;
}

export const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

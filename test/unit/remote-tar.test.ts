/**
 * The runner's hand-written tar records (src/core/remote/tar-writer.ts) read back the same
 * through tar-stream, through GNU tar and through the client's own reader (tar-reader.ts,
 * which must also read what tar-stream's packer makes, as older runners send): short names,
 * names that need ustar's prefix field, names too long for it (a pax record), UTF-8 names,
 * empty files, folders and bodies that end on and off a block boundary, in chunks of any size.
 * TarOut (tar-out.ts), which packs files read from disk straight into its chunks, makes the
 * very same bytes.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import tar from "tar-stream";
import { TarOut } from "../../src/core/remote/bundle/tar-out";
import { TarFormatError, type TarReadEntry, TarReader } from "../../src/core/remote/bundle/tar-reader";
import { TAR_END, type TarEntry, tarHeader, tarPadding } from "../../src/core/remote/bundle/tar-writer";

const long = (n: number) => Array.from({ length: n }, (_, i) => `part${i}`).join("/");
const cases: Array<{ name: string; type: TarEntry["type"]; body?: Buffer }> = [
  { name: "run-1", type: "directory" },
  { name: "run-1/run.json", type: "file", body: Buffer.from('{"id":"run-1"}\n') },
  { name: "run-1/rollouts", type: "directory" },
  { name: "run-1/rollouts/empty.jsonl", type: "file", body: Buffer.alloc(0) },
  { name: "run-1/rollouts/block.jsonl", type: "file", body: Buffer.alloc(512, 120) },
  { name: "run-1/rollouts/odd.jsonl", type: "file", body: Buffer.alloc(1537, 121) },
  { name: `run-1/rollouts/${"t".repeat(95)}.s0.jsonl`, type: "file", body: Buffer.from("prefix split\n") },
  { name: `run-1/${long(40)}/x.jsonl`, type: "file", body: Buffer.from("pax path\n") },
  { name: `run-1/rollouts/${"n".repeat(120)}.jsonl`, type: "file", body: Buffer.from("a name over 100 bytes with no slash to split at\n") },
  { name: "run-1/rollouts/tâche-été-✓.jsonl", type: "file", body: Buffer.from("utf-8\n") },
];

function archive(): Buffer {
  const parts: Buffer[] = [];
  for (const c of cases) {
    const body = c.body ?? Buffer.alloc(0);
    parts.push(
      tarHeader({ name: c.name, type: c.type, size: body.length, mode: c.type === "directory" ? 0o755 : 0o644, mtime: 1_700_000_000 }),
      body,
      tarPadding(body.length),
    );
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}

test("tar-stream (the client's parser) reads every entry back: names, types, bodies", async () => {
  const got: Array<{ name: string; type: string; body: Buffer; mode: number; mtime: number }> = [];
  const extract = tar.extract();
  extract.on("entry", (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: unknown) => chunks.push(c as Buffer));
    stream.on("end", () => {
      got.push({
        name: header.name,
        type: header.type ?? "",
        body: Buffer.concat(chunks),
        mode: header.mode ?? 0,
        mtime: header.mtime?.getTime() ?? 0,
      });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    extract.on("finish", resolve);
    extract.on("error", reject);
  });
  Readable.from([archive()]).pipe(extract);
  await done;
  assert.deepEqual(
    got.map((g) => [g.name.replace(/\/$/, ""), g.type]),
    cases.map((c) => [c.name, c.type]),
  );
  for (const [i, c] of cases.entries()) {
    assert.ok(got[i]?.body.equals(c.body ?? Buffer.alloc(0)), c.name);
    assert.equal(got[i]?.mode, c.type === "directory" ? 0o755 : 0o644);
    assert.equal(got[i]?.mtime, 1_700_000_000_000);
  }
});

test("GNU tar extracts the same archive byte for byte", {
  skip: spawnSync("tar", ["--version"]).status === 0 ? false : "no tar on this machine",
}, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tar-writer-"));
  try {
    writeFileSync(path.join(dir, "a.tar"), archive());
    const r = spawnSync("tar", ["-xf", "a.tar"], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    for (const c of cases.filter((x) => x.type === "file"))
      assert.ok(readFileSync(path.join(dir, c.name)).equals(c.body ?? Buffer.alloc(0)), c.name);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What tar-stream's packer makes of the same entries (pax records where names are long). */
async function tarStreamArchive(): Promise<Buffer> {
  const pack = tar.pack();
  for (const c of cases)
    pack.entry({ name: c.name, type: c.type, mode: c.type === "directory" ? 0o755 : 0o644 }, c.body ?? Buffer.alloc(0));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as Readable) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function readAll(bytes: Buffer, chunkSize: number): TarReadEntry[] {
  const got: TarReadEntry[] = [];
  const reader = new TarReader((e) => got.push(e));
  for (let at = 0; at < bytes.length; at += chunkSize) reader.push(bytes.subarray(at, at + chunkSize));
  reader.end();
  return got;
}

test("the client's reader reads both packers' archives, in chunks of any size", async () => {
  for (const [label, bytes] of [
    ["tar-writer", archive()],
    ["tar-stream", await tarStreamArchive()],
  ] as const) {
    for (const size of [1, 7, 511, 512, 513, 4096, bytes.length]) {
      const got = readAll(bytes, size);
      assert.deepEqual(
        got.map((g) => [g.name.replace(/\/$/, ""), g.type]),
        cases.map((c) => [c.name, c.type]),
        `${label} in chunks of ${size}`,
      );
      for (const [i, c] of cases.entries())
        assert.ok(got[i]?.body.equals(c.type === "file" ? (c.body ?? Buffer.alloc(0)) : Buffer.alloc(0)), `${label}/${size}: ${c.name}`);
    }
  }
});

test("the client's reader refuses a truncated archive and one that is not a tar", () => {
  const bytes = archive();
  assert.throws(() => readAll(bytes.subarray(0, 512 * 3 + 100), 4096), TarFormatError);
  assert.throws(() => readAll(bytes.subarray(0, 700), 4096), TarFormatError);
  assert.throws(() => readAll(Buffer.from("<html>502 Bad Gateway</html>".padEnd(1024, " ")), 4096), /not a tar archive/);
});

/** Everything a TarOut writes, once it has ended. */
async function drained(out: TarOut): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of out.stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

test("TarOut packs files read from disk into the same bytes as the header writer", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tar-out-"));
  try {
    const out = new TarOut();
    const done = drained(out);
    for (const [i, c] of cases.entries()) {
      if (c.type === "directory") out.directory(c.name, 1_700_000_000);
      else {
        writeFileSync(path.join(dir, `f${i}`), c.body ?? Buffer.alloc(0));
        assert.equal(out.file(c.name, path.join(dir, `f${i}`), 1_700_000_000), c.body?.length ?? 0, c.name);
      }
    }
    out.end();
    assert.ok((await done).equals(archive()));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("TarOut sends a file bigger than its chunk whole, skips a gone one and one already sent at that size", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tar-out-"));
  try {
    const big = Buffer.alloc(300 * 1024 + 17, 7); // more than a chunk's 256 KiB
    writeFileSync(path.join(dir, "big"), big);
    writeFileSync(path.join(dir, "same"), "unchanged\n");
    writeFileSync(path.join(dir, "grew"), "longer now\n");
    const out = new TarOut();
    const done = drained(out);
    // Small entries first, so the big one arrives in a chunk that is partly used.
    for (let i = 0; i < 40; i++) out.file(`r/small-${i}`, path.join(dir, "same"), 1_700_000_000);
    assert.equal(out.file("r/big", path.join(dir, "big"), 1_700_000_000), big.length);
    assert.equal(out.file("r/gone", path.join(dir, "nothing-here"), 1_700_000_000), undefined);
    assert.equal(out.file("r/same", path.join(dir, "same"), 1_700_000_000, 10), 10);
    assert.equal(out.file("r/grew", path.join(dir, "grew"), 1_700_000_000, 10), 11);
    out.end();
    const got = readAll(await done, 65536);
    assert.deepEqual(
      got.map((e) => e.name),
      [...Array.from({ length: 40 }, (_, i) => `r/small-${i}`), "r/big", "r/grew"],
    );
    assert.ok(got.find((e) => e.name === "r/big")?.body.equals(big));
    assert.equal(got.find((e) => e.name === "r/grew")?.body.toString(), "longer now\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

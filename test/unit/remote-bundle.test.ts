import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import tar from "tar-stream";
import { BundleError, packDirectory, safeEntryPath, unpackBundle } from "../../src/core/remote/bundle/bundle";

type Entry = {
  name: string;
  type?: "file" | "directory" | "symlink" | "link" | "character-device" | "fifo";
  body?: string;
  linkname?: string;
  size?: number;
  mode?: number;
};

function tarOf(entries: Entry[]): Readable {
  const pack = tar.pack();
  for (const e of entries) {
    const { body, ...header } = e;
    pack.entry({ mode: 0o644, ...header }, body ?? "");
  }
  pack.finalize();
  return pack as unknown as Readable;
}

function scratch(): { root: string; dest: string; done: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-bundle-"));
  return { root, dest: path.join(root, "out"), done: () => rmSync(root, { recursive: true, force: true }) };
}

test("safeEntryPath refuses .., absolute and backslash names and normalises ./", () => {
  assert.deepEqual(safeEntryPath("./env/a.txt"), { ok: true, rel: "env/a.txt" });
  assert.equal(safeEntryPath("../x").ok, false);
  assert.equal(safeEntryPath("env/../../x").ok, false);
  assert.equal(safeEntryPath("/etc/passwd").ok, false);
  assert.equal(safeEntryPath("C:\\x").ok, false);
  assert.equal(safeEntryPath("a\\..\\b").ok, false);
});

test("safeEntryPath's one-pass check of plain names agrees with the full one", () => {
  // Plain names (the fast path) come back as they are; dot segments, doubled slashes and
  // odd characters take the full path, which cleans or refuses them.
  for (const name of ["run-1/rollouts/t0.s3.jsonl", "a/b.c/d-e_f+g", "a/..b", "a/b..", "-x/y", "x/"])
    assert.deepEqual(safeEntryPath(name), { ok: true, rel: name.replace(/\/$/, "") });
  assert.deepEqual(safeEntryPath("./a"), { ok: true, rel: "a" });
  assert.deepEqual(safeEntryPath("a/."), { ok: true, rel: "a" });
  assert.deepEqual(safeEntryPath("a//b"), { ok: true, rel: "a/b" });
  assert.deepEqual(safeEntryPath(".hidden/x"), { ok: true, rel: ".hidden/x" });
  assert.deepEqual(safeEntryPath("ünï/x y"), { ok: true, rel: "ünï/x y" });
  for (const name of ["..", "a/..", "../a", "a/../b", "/a", "a\\b", "C:/x", "a\0b"]) assert.equal(safeEntryPath(name).ok, false, name);
});

test("a plain bundle unpacks with its folders, contents and executable bits", async () => {
  const s = scratch();
  try {
    const r = await unpackBundle(
      tarOf([
        { name: "env/", type: "directory" },
        { name: "env/run.sh", body: "#!/bin/sh\n", mode: 0o4755 },
        { name: "job.json", body: "{}" },
      ]),
      s.dest,
    );
    assert.equal(r.files, 2);
    assert.equal(readFileSync(path.join(s.dest, "env/run.sh"), "utf8"), "#!/bin/sh\n");
    // setuid dropped, x kept
    assert.equal(statSync(path.join(s.dest, "env/run.sh")).mode & 0o7777, 0o755);
  } finally {
    s.done();
  }
});

const refusals: Array<[string, Entry[], 400 | 413, RegExp]> = [
  [
    "a ../ entry",
    [
      { name: "ok.txt", body: "x" },
      { name: "../escape.txt", body: "pwned" },
    ],
    400,
    /`\.\.`/,
  ],
  ["an absolute entry", [{ name: "/tmp/rlenv-abs-escape.txt", body: "pwned" }], 400, /absolute/],
  ["a symlink", [{ name: "env/link", type: "symlink", linkname: "/etc/passwd" }], 400, /symlink/],
  ["a hard link", [{ name: "env/hard", type: "link", linkname: "/etc/passwd" }], 400, /link/],
  ["a device", [{ name: "env/dev", type: "character-device" }], 400, /character-device/],
  ["a FIFO", [{ name: "env/fifo", type: "fifo" }], 400, /fifo/],
];
for (const [what, entries, status, message] of refusals) {
  test(`${what} is refused and nothing is left written`, async () => {
    const s = scratch();
    try {
      await assert.rejects(
        unpackBundle(tarOf(entries), s.dest),
        (e: unknown) => e instanceof BundleError && e.status === status && message.test(e.message),
      );
      assert.equal(existsSync(s.dest), false, "the staging folder is removed");
      assert.equal(existsSync(path.join(s.root, "escape.txt")), false);
      assert.equal(existsSync("/tmp/rlenv-abs-escape.txt"), false);
    } finally {
      s.done();
    }
  });
}

test("file-count and size limits answer 413", async () => {
  const s = scratch();
  try {
    const many = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, body: "x" }));
    await assert.rejects(
      unpackBundle(tarOf(many), s.dest, { maxFiles: 5, maxBytes: 1e6 }),
      (e: unknown) => e instanceof BundleError && e.status === 413,
    );
    assert.equal(existsSync(s.dest), false);
    await assert.rejects(
      unpackBundle(tarOf([{ name: "big", body: "x".repeat(2000) }]), s.dest, { maxFiles: 5, maxBytes: 1000 }),
      /more than 1000 bytes/,
    );
    assert.equal(existsSync(s.dest), false);
  } finally {
    s.done();
  }
});

test("garbage instead of a tar is a 400", async () => {
  const s = scratch();
  try {
    await assert.rejects(
      unpackBundle(Readable.from([Buffer.from("this is not a tar archive at all, sorry ".repeat(20))]), s.dest),
      (e: unknown) => e instanceof BundleError && e.status === 400,
    );
    assert.equal(existsSync(s.dest), false);
  } finally {
    s.done();
  }
});

test("packDirectory round-trips through unpackBundle and refuses symlinks", async () => {
  const s = scratch();
  try {
    const src = path.join(s.root, "src");
    mkdirSync(path.join(src, "sub"), { recursive: true });
    writeFileSync(path.join(src, "a.txt"), "A");
    writeFileSync(path.join(src, "sub", "b.txt"), "B");
    mkdirSync(path.join(src, "node_modules"));
    writeFileSync(path.join(src, "node_modules", "skip.js"), "");
    await unpackBundle(packDirectory(src, "env", { "job.json": "{}" }), s.dest);
    assert.equal(readFileSync(path.join(s.dest, "env/sub/b.txt"), "utf8"), "B");
    assert.equal(readFileSync(path.join(s.dest, "job.json"), "utf8"), "{}");
    assert.equal(existsSync(path.join(s.dest, "env/node_modules")), false);
    symlinkSync("/etc/passwd", path.join(src, "link"));
    await assert.rejects(unpackBundle(packDirectory(src, "env"), path.join(s.root, "out2")), /symbolic link/);
  } finally {
    s.done();
  }
});

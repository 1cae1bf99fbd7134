// Reading a Harbor task folder's environment/, tests/ and solution/: links inside are read as
// what they point to, but a link to a folder above is not walked again (it walked until ELOOP,
// with sub/up/sub/up/... in the message); a FIFO or a loop of links is named, not skipped.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readTree } from "../../src/core/util/read-tree";

function folder(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-harbor-tree-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test("a link to a folder above ends; links inside read as their target; modes kept; bytes exact", () => {
  const { dir, cleanup } = folder();
  try {
    mkdirSync(path.join(dir, "tests/sub"), { recursive: true });
    writeFileSync(path.join(dir, "tests/test.sh"), "#!/bin/bash\n");
    chmodSync(path.join(dir, "tests/test.sh"), 0o755);
    const bytes = Buffer.from([0, 0xff, 0xfe, 0x0a, 0xc3]);
    writeFileSync(path.join(dir, "tests/sub/data.bin"), bytes);
    symlinkSync("..", path.join(dir, "tests/sub/up"));
    symlinkSync(".", path.join(dir, "tests/self"));
    symlinkSync("sub/data.bin", path.join(dir, "tests/alias.bin"));
    const tree = readTree(path.join(dir, "tests"), dir);
    assert.deepEqual([...tree.keys()], ["alias.bin", "sub/data.bin", "test.sh"]);
    assert.ok(tree.get("sub/data.bin")?.bytes.equals(bytes));
    assert.equal(tree.get("test.sh")?.executable, true);
    assert.equal(tree.get("sub/data.bin")?.executable, false);
  } finally {
    cleanup();
  }
});

test("a FIFO or a loop of file links throws, naming it", () => {
  const { dir, cleanup } = folder();
  try {
    mkdirSync(path.join(dir, "tests"));
    execFileSync("mkfifo", [path.join(dir, "tests/pipe")]);
    assert.throws(() => readTree(path.join(dir, "tests"), dir), /tests\/pipe: a FIFO, not a file or a folder/);
    rmSync(path.join(dir, "tests/pipe"));
    symlinkSync("b", path.join(dir, "tests/a"));
    symlinkSync("a", path.join(dir, "tests/b"));
    assert.throws(() => readTree(path.join(dir, "tests"), dir), /tests\/a: a loop of symbolic links/);
  } finally {
    cleanup();
  }
});

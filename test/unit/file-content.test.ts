/**
 * A task's file contents keep what the sandbox must get: bytes (text or base64) and, for a file
 * marked so or executable on disk, its executable bits.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { contentOfBytes, executablePaths, fileBytes, fileText, isBinary, sandboxFiles, textFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { FileMap } from "../../src/core/schema/common";
import { writeTaskFiles } from "../../src/core/sandbox/task-files";

test("contentOfBytes: text or base64, and the executable form of each", () => {
  const bin = Buffer.from([0x7f, 0x45, 0, 0xff]);
  assert.equal(contentOfBytes(Buffer.from("hi\n")), "hi\n");
  assert.deepEqual(contentOfBytes(Buffer.from("hi\n"), true), { text: "hi\n", executable: true });
  assert.deepEqual(contentOfBytes(bin), { base64: bin.toString("base64") });
  assert.deepEqual(contentOfBytes(bin, true), { base64: bin.toString("base64"), executable: true });
  const map: FileMap = {
    "a.sh": { text: "echo\n", executable: true },
    "b.bin": { base64: bin.toString("base64"), executable: true },
    "c.txt": "c",
  };
  assert.deepEqual(executablePaths(map), ["a.sh", "b.bin"]);
  assert.deepEqual(textFiles(map), { "a.sh": "echo\n", "c.txt": "c" });
  assert.deepEqual(sandboxFiles(map), { "a.sh": "echo\n", "b.bin": bin, "c.txt": "c" });
  assert.equal(fileText(map["a.sh"] ?? ""), "echo\n");
  assert.ok(fileBytes(map["b.bin"] ?? "").equals(bin));
  assert.ok(!isBinary(map["a.sh"] ?? "") && isBinary(map["b.bin"] ?? ""));
});

test("the schema takes { text, executable } and { base64, executable }, and refuses a file that is both or neither", () => {
  assert.ok(FileMap.safeParse({ "a.sh": { text: "x", executable: true }, b: { base64: "YQ==", executable: false }, c: "x" }).success);
  assert.ok(!FileMap.safeParse({ a: { text: "x", base64: "YQ==" } }).success);
  assert.ok(!FileMap.safeParse({ a: { executable: true } }).success);
  assert.ok(!FileMap.safeParse({ a: { text: "x", executable: "yes" } }).success);
});

test("a task folder's executable files (any x bit on disk) are marked executable; the others are not", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-modes-"));
  try {
    const t = path.join(dir, "tasks/t1");
    for (const [rel, mode] of [
      ["files/run.sh", 0o755],
      ["files/owner-only.sh", 0o700],
      ["files/group.sh", 0o614],
      ["files/data.txt", 0o644],
      ["tests/check.sh", 0o755],
      ["solution/go.sh", 0o755],
    ] as const) {
      mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
      writeFileSync(path.join(t, rel), `#!/bin/sh\n# ${rel}\n`);
      chmodSync(path.join(t, rel), mode);
    }
    writeFileSync(path.join(t, "task.yaml"), "prompt: Run it\n");
    writeFileSync(
      path.join(dir, "environment.yaml"),
      "name: modes\ndomain: code\ntasks: tasks\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: ./check.sh\n    format: exit-code\n",
    );
    const { env, problems } = loadEnvironment(dir);
    assert.deepEqual(problems, []);
    const task = env?.tasks[0];
    assert.deepEqual(executablePaths(task?.files).sort(), ["group.sh", "owner-only.sh", "run.sh"]);
    assert.equal(task?.files?.["data.txt"], "#!/bin/sh\n# files/data.txt\n");
    assert.deepEqual(executablePaths(task?.tests?.files), ["check.sh"]);
    assert.deepEqual(executablePaths(task?.solution?.files), ["go.sh"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("writeTaskFiles: the plain files in one write with the default mode, the executable ones in another with 755", async () => {
  const writes: Array<{ files: string[]; mode: number | undefined }> = [];
  const sb = {
    writeFiles: async (files: Record<string, string | Buffer>, opts?: { mode?: number }) => {
      writes.push({ files: Object.keys(files).sort(), mode: opts?.mode });
    },
  };
  await writeTaskFiles(sb, { "a.sh": { text: "x", executable: true }, "b.txt": "y", "c.bin": { base64: "AA==" } });
  assert.deepEqual(writes, [
    { files: ["b.txt", "c.bin"], mode: undefined },
    { files: ["a.sh"], mode: 0o755 },
  ]);
  writes.length = 0;
  await writeTaskFiles(sb, { "b.txt": "y" });
  assert.deepEqual(writes, [{ files: ["b.txt"], mode: undefined }]);
});

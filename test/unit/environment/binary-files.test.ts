import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { contentOfBytes, fileBytes, sandboxFiles } from "../../../src/core/model/file-content";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import { formatProblem } from "../../../src/core/model/problem";
import { png, randomBin, sqliteDb } from "../../support/binary-fixtures";
import { makeEnvDir } from "../../support/tmp-env";

const MANIFEST = (tasks: string) =>
  `name: bin\ndomain: code\ntasks: ${tasks}\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: python3 check.py\n    format: exit-code\n`;

describe("binary task files", () => {
  test("a task folder's binary files load byte for byte; text stays text", () => {
    const bins = { "shop.db": sqliteDb(), "img/logo.png": png(), "random.bin": randomBin() };
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]);
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": MANIFEST("tasks"),
      "tasks/t1/task.yaml": "prompt: Query the shop\n",
      "tasks/t1/files/main.py": "print('ü')\n",
    });
    try {
      for (const [rel, bytes] of Object.entries(bins)) {
        for (const sub of ["files", "tests", "solution"]) {
          mkdirSync(path.dirname(path.join(dir, "tasks/t1", sub, rel)), { recursive: true });
          writeFileSync(path.join(dir, "tasks/t1", sub, rel), bytes);
        }
      }
      writeFileSync(path.join(dir, "tasks/t1/files/bom.txt"), bom);
      const r = loadEnvironment(dir);
      assert.deepEqual(
        r.problems.map((p) => formatProblem(p, dir)),
        [],
      );
      const t = r.env?.tasks[0];
      assert.ok(t);
      for (const [rel, bytes] of Object.entries(bins)) {
        for (const map of [t.files, t.tests?.files, t.solution?.files]) {
          const c = map?.[rel];
          assert.ok(c !== undefined && typeof c !== "string", `${rel} is binary content`);
          assert.ok(fileBytes(c).equals(bytes), `${rel} keeps every byte`);
        }
      }
      assert.equal(t.files?.["main.py"], "print('ü')\n");
      // A byte-order mark is UTF-8 text, and is kept.
      assert.ok(fileBytes(t.files?.["bom.txt"] ?? "").equals(bom));
      assert.equal(typeof t.files?.["bom.txt"], "string");
      const sb = sandboxFiles(t.files);
      assert.ok(Buffer.isBuffer(sb["shop.db"]) && sb["shop.db"].equals(bins["shop.db"]));
      assert.equal(sb["main.py"], "print('ü')\n");
    } finally {
      cleanup();
    }
  });

  test('a JSONL task gives binary content as { "base64": "…" }; anything else there is a positioned error', () => {
    const db = sqliteDb();
    const good = {
      id: "t1",
      prompt: "p",
      files: { "shop.db": { base64: db.toString("base64") }, "a.py": "x = 1\n" },
      tests: { files: { "b.bin": { base64: "AAEC/w==" } } },
    };
    const bad = { id: "t2", prompt: "p", files: { "x.bin": { base64: "not base64!" } } };
    const odd = { id: "t3", prompt: "p", files: { "y.bin": { hex: "00ff" } } };
    // The executable form: a flag that is not a boolean is named where it is, in the form it belongs to.
    const flag = { id: "t4", prompt: "p", files: { "run.sh": { text: "echo", executable: "yes" } } };
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": MANIFEST("tasks.jsonl"),
      "tasks.jsonl": [good, bad, odd, flag].map((l) => JSON.stringify(l)).join("\n") + "\n",
    });
    try {
      const r = loadEnvironment(dir);
      assert.deepEqual(
        r.env?.tasks.map((t) => t.id),
        ["t1"],
      );
      const t = r.env?.tasks[0];
      assert.ok(fileBytes(t?.files?.["shop.db"] ?? "").equals(db));
      assert.ok(fileBytes(t?.tests?.files?.["b.bin"] ?? "").equals(Buffer.from([0, 1, 2, 255])));
      const lines = r.problems.map((p) => formatProblem(p, dir));
      assert.deepEqual(lines, [
        `tasks.jsonl:2:52: error: tasks[1].files["x.bin"].base64: not base64 (standard alphabet, padded with '=', no line breaks)`,
        `tasks.jsonl:3:42: error: tasks[2].files["y.bin"]: missing required field 'base64' (a string)`,
        `tasks.jsonl:3:43: error: tasks[2].files["y.bin"].hex: unknown field 'hex'`,
        `tasks.jsonl:4:71: error: tasks[3].files["run.sh"].executable: expected true or false, got a string`,
      ]);
    } finally {
      cleanup();
    }
  });

  test("bytes become text only when they are UTF-8 without NUL, so the round trip is exact", () => {
    for (const b of [Buffer.from("plain\n"), Buffer.from([0xc3, 0x28]), Buffer.from("a\0b"), randomBin(64), png(), Buffer.alloc(0)]) {
      const c = contentOfBytes(b);
      assert.ok(fileBytes(c).equals(b));
    }
    assert.equal(contentOfBytes(Buffer.from("plain\n")), "plain\n");
    assert.deepEqual(contentOfBytes(Buffer.from([0xc3, 0x28])), { base64: "wyg=" });
  });
});

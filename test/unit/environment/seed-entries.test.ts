// What a task folder's files/, tests/ and solution/ may hold: files and folders (and links
// that stay inside). A FIFO, a socket or a loop of links is refused where it is, naming it;
// before, a loop made the whole loader throw ELOOP and a FIFO was left out without a word.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import { formatProblem } from "../../../src/core/model/problem";
import { makeEnvDir } from "../../support/tmp-env";

const MANIFEST = "name: seeds\ndomain: code\ntasks: tasks\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: pytest\n";

test("a FIFO, a socket or a loop of links in a task's folders refuses that task, naming the entry; the others load", async () => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": MANIFEST,
    "tasks/fifo/task.yaml": "prompt: a\n",
    "tasks/fifo/files/main.py": "x = 1\n",
    "tasks/loop/task.yaml": "prompt: b\n",
    "tasks/loop/tests/test_x.py": "def test_x(): pass\n",
    "tasks/sock/task.yaml": "prompt: c\n",
    "tasks/sock/solution/keep.txt": "k\n",
    "tasks/ok/task.yaml": "prompt: d\n",
    "tasks/ok/files/-rf": "dash\n",
    "tasks/ok/files/new\nline.txt": "nl\n",
    "tasks/ok/files/empty": "",
  });
  const server = net.createServer();
  try {
    execFileSync("mkfifo", [path.join(dir, "tasks/fifo/files/pipe")]);
    symlinkSync("b", path.join(dir, "tasks/loop/tests/a"));
    symlinkSync("a", path.join(dir, "tasks/loop/tests/b"));
    await new Promise<void>((resolve) => server.listen(path.join(dir, "tasks/sock/solution/s.sock"), resolve));
    const r = loadEnvironment(dir);
    const lines = r.problems.map((p) => formatProblem(p, dir)).sort();
    assert.deepEqual(lines, [
      "tasks/fifo/files/pipe:1:1: error: tasks[0]: 'files/pipe' is a FIFO, not a file or a folder: a task's folders hold files and folders only",
      "tasks/loop/tests/a:1:1: error: tasks[1]: 'tests/a' is a loop of symbolic links",
      "tasks/loop/tests/b:1:1: error: tasks[1]: 'tests/b' is a loop of symbolic links",
      "tasks/sock/solution/s.sock:1:1: error: tasks[3]: 'solution/s.sock' is a socket, not a file or a folder: a task's folders hold files and folders only",
    ]);
    assert.deepEqual(
      r.env?.tasks.map((t) => t.id),
      ["ok"],
    );
    assert.deepEqual(r.env?.tasks[0]?.files, { "-rf": "dash\n", empty: "", "new\nline.txt": "nl\n" });
  } finally {
    server.close();
    cleanup();
  }
});

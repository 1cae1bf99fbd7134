import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import { formatProblem } from "../../../src/core/model/problem";
import { makeEnvDir } from "../../support/tmp-env";

const MANIFEST = [
  "name: links",
  "domain: code",
  "tasks: tasks",
  "tools: [bash, submit]",
  "sandbox: { build: sandbox/Dockerfile }",
  "reward:",
  "  - type: tests",
  "    command: pytest",
  "",
].join("\n");

describe("links out of an environment folder", () => {
  test("each one, wherever it is, is refused where it is; none is followed; the rest loads", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": MANIFEST,
      "sandbox/Dockerfile": "FROM rlenv/python:bookworm\n",
      "sandbox/hosts": { symlink: "/etc/hosts" },
      "shared/data.txt": "shared\n",
      "tasks/t1/task.yaml": "prompt: Fix it\n",
      "tasks/t1/files/main.py": "x = 1\n",
      "tasks/t1/files/passwd": { symlink: "/etc/passwd" },
      // A folder link out: validate used to walk into /etc and die on its first dangling link.
      "tasks/t1/files/etc": { symlink: "/etc" },
      // Dangling, but naming a host path: refused all the same.
      "tasks/t1/files/ghost": { symlink: "/nonexistent/rlenv-ghost" },
      // Links that stay inside are read as what they point to; a link to a folder above ends.
      "tasks/t1/files/alias.txt": { symlink: "../../../shared/data.txt" },
      "tasks/t1/files/up": { symlink: ".." },
      "tasks/t1/tests/test_x.py": { symlink: "/etc/hostname" },
      "tasks/t1/solution/main.py": "x = 2\n",
      "tasks/t2/task.yaml": "prompt: Other\n",
      "tasks/t2/files": { symlink: "/etc" },
      "tasks/evil": { symlink: "/etc" },
      "documents/report.txt": { symlink: "/etc/passwd" },
      "assets/model.glb": { symlink: "/etc/passwd" },
    });
    try {
      const r = loadEnvironment(dir);
      const real = realpathSync(dir);
      const lines = r.problems.map((p) => formatProblem(p, dir)).sort();
      const target = (p: string) => realpathSync(p);
      assert.deepEqual(
        lines,
        [
          `assets/model.glb:1:1: error: 'assets/model.glb' links outside the environment (to ${target("/etc/passwd")})`,
          `documents/report.txt:1:1: error: 'documents/report.txt' links outside the environment (to ${target("/etc/passwd")})`,
          `sandbox/hosts:1:1: error: 'sandbox/hosts' links outside the environment (to ${target("/etc/hosts")})`,
          "tasks/evil:1:1: error: 'tasks/evil' links outside the environment (to /etc)",
          "tasks/t1/files/etc:1:1: error: 'tasks/t1/files/etc' links outside the environment (to /etc)",
          "tasks/t1/files/ghost:1:1: error: 'tasks/t1/files/ghost' links outside the environment (to /nonexistent/rlenv-ghost)",
          `tasks/t1/files/passwd:1:1: error: 'tasks/t1/files/passwd' links outside the environment (to ${target("/etc/passwd")})`,
          `tasks/t1/tests/test_x.py:1:1: error: 'tasks/t1/tests/test_x.py' links outside the environment (to ${target("/etc/hostname")})`,
          "tasks/t2/files:1:1: error: 'tasks/t2/files' links outside the environment (to /etc)",
        ].sort(),
      );
      assert.ok(!real.startsWith("/etc"));
      const tasks = new Map(r.env?.tasks.map((t) => [t.id, t]));
      assert.deepEqual([...tasks.keys()], ["t1", "t2"]);
      // Nothing of the host got in: only the files that are the environment's own.
      assert.deepEqual(tasks.get("t1")?.files, { "alias.txt": "shared\n", "main.py": "x = 1\n" });
      assert.equal(tasks.get("t1")?.tests, undefined);
      assert.equal(tasks.get("t2")?.files, undefined);
    } finally {
      cleanup();
    }
  });

  test("a tasks file named by the manifest that links out is refused at the manifest's field, once", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": "name: l\ndomain: code\ntasks: link.jsonl\ntools: [bash, submit]\nreward:\n  - type: exact\n",
      "link.jsonl": { symlink: "/etc/hostname" },
    });
    try {
      const lines = loadEnvironment(dir).problems.map((p) => formatProblem(p, dir));
      assert.deepEqual(lines, [
        `environment.yaml:3:8: error: tasks: path 'link.jsonl' links outside the environment (to ${realpathSync("/etc/hostname")})`,
      ]);
    } finally {
      cleanup();
    }
  });

  test("the environment's content hash never follows a link", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": MANIFEST.replace("sandbox: { build: sandbox/Dockerfile }\n", ""),
      "tasks/t1/task.yaml": "prompt: Fix it\n",
      "tasks/t1/files/up": { symlink: "../../.." },
      "tasks/t1/files/etc": { symlink: "/etc" },
    });
    try {
      const r = loadEnvironment(dir);
      assert.match(r.env?.hash ?? "", /^[0-9a-f]{16}$/);
      assert.ok(r.problems.some((p) => p.file === path.join(dir, "tasks/t1/files/etc")));
    } finally {
      cleanup();
    }
  });
});

import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { formatProblem } from "../../../src/core/model/problem";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import { templateFiles } from "../../../src/core/environment/templates";
import { makeEnvDir } from "../../support/tmp-env";
import { CASES } from "./broken-cases";

describe("broken environments give exact, positioned problems", () => {
  test("the table has at least 30 cases", () => assert.ok(CASES.length >= 30, `${CASES.length} cases`));
  for (const c of CASES) {
    test(c.name, () => {
      const { dir, cleanup } = makeEnvDir(c.files);
      try {
        const r = loadEnvironment(dir);
        assert.deepEqual(
          r.problems.map((p) => formatProblem(p, dir)),
          c.expect,
        );
        assert.ok(c.expect.length > 0, "a broken case must report something");
        assert.equal(r.env ? r.env.tasks.length : null, c.tasksLoaded);
      } finally {
        cleanup();
      }
    });
  }
});

describe("valid environments", () => {
  for (const domain of ["code", "scene3d", "document", "custom"] as const) {
    test(`the ${domain} template loads with no problems`, () => {
      const { dir, cleanup } = makeEnvDir(templateFiles(domain, `t-${domain}`));
      try {
        const r = loadEnvironment(dir);
        assert.deepEqual(r.problems, []);
        assert.equal(r.env?.tasks.length, 1);
        assert.match(r.env?.hash ?? "", /^[0-9a-f]{16}$/);
      } finally {
        cleanup();
      }
    });
  }

  test("a colon after a quote inside a string is no second field: the line loads", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": "name: q\ndomain: custom\ntasks: tasks.jsonl\ntools: [submit]\nreward:\n  - type: exact\n",
      "tasks.jsonl": '{"id":"t1","prompt":"say \\"x\\": 1 and \\"y\\" : 2","solution":{"answer":"a"}}\n',
    });
    try {
      const r = loadEnvironment(dir);
      assert.deepEqual(r.problems, []);
      assert.equal(r.env?.tasks[0]?.prompt, 'say "x": 1 and "y" : 2');
    } finally {
      cleanup();
    }
  });

  test("task folders merge files/, tests/ and solution/ into the task", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": "name: f\ndomain: code\ntasks: tasks\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: pytest\n",
      "tasks/fix-1/task.yaml": "prompt: Fix the bug\nmetadata: { difficulty: easy }\n",
      "tasks/fix-1/files/pkg/a.py": "x = 1\n",
      "tasks/fix-1/tests/test_a.py": "def test(): pass\n",
      "tasks/fix-1/solution/pkg/a.py": "x = 2\n",
    });
    try {
      const r = loadEnvironment(dir);
      assert.deepEqual(r.problems, []);
      const t = r.env!.tasks[0]!;
      assert.equal(t.id, "fix-1");
      assert.deepEqual(t.files, { "pkg/a.py": "x = 1\n" });
      assert.deepEqual(t.tests?.files, { "test_a.py": "def test(): pass\n" });
      assert.deepEqual(t.solution?.files, { "pkg/a.py": "x = 2\n" });
      assert.deepEqual(t.metadata, { difficulty: "easy" });
    } finally {
      cleanup();
    }
  });

  test("prompt files are read; defaults fill in the rest", () => {
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": "name: p\ndomain: code\ntasks: t.jsonl\nprompt:\n  system_file: prompts/sys.md\nreward:\n  - type: exact\n",
      "prompts/sys.md": "Be brief.\n",
      "t.jsonl": '{"id":"a","prompt":"x"}\n\n{"id":"b","prompt":"y"}\n',
    });
    try {
      const r = loadEnvironment(dir);
      assert.deepEqual(r.problems, []);
      assert.equal(r.env?.prompts.system, "Be brief.\n");
      assert.equal(r.env?.prompts.user, "{{task.prompt}}");
      assert.equal(r.env?.manifest.max_turns, 20);
      assert.equal(r.env?.manifest.sandbox.workdir, "/workspace");
      assert.deepEqual(
        r.env?.tasks.map((t) => [t.id, t.source.line]),
        [
          ["a", 1],
          ["b", 3],
        ],
      );
    } finally {
      cleanup();
    }
  });

  test("every example environment in environments/ validates", () => {
    const root = path.join(__dirname, "../../../environments");
    for (const name of readdirSync(root)) {
      const r = loadEnvironment(path.join(root, name));
      assert.deepEqual(
        r.problems.map((p) => formatProblem(p, root)),
        [],
        name,
      );
    }
  });
});

/** A small deterministic PRNG so a failure can be reproduced from the printed seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("random byte flips in a valid manifest and task file never crash the loader", () => {
  const files = templateFiles("code", "fuzz");
  const { dir, cleanup } = makeEnvDir(files);
  const manifest = Buffer.from(files["environment.yaml"]!);
  const tasks = Buffer.from(files["tasks.jsonl"]!);
  const rand = mulberry32(20261202);
  let valid = 0;
  let invalid = 0;
  try {
    for (let i = 0; i < 400; i++) {
      const target = i % 2 === 0 ? manifest : tasks;
      const mutated = Buffer.from(target);
      const flips = 1 + Math.floor(rand() * 4);
      for (let f = 0; f < flips; f++) {
        const at = Math.floor(rand() * mutated.length);
        mutated[at] = Math.floor(rand() * 256);
      }
      writeFileSync(path.join(dir, i % 2 === 0 ? "environment.yaml" : "tasks.jsonl"), mutated);
      writeFileSync(path.join(dir, i % 2 === 0 ? "tasks.jsonl" : "environment.yaml"), i % 2 === 0 ? tasks : manifest);
      let r: ReturnType<typeof loadEnvironment>;
      try {
        r = loadEnvironment(dir);
      } catch (e) {
        assert.fail(`iteration ${i} threw ${(e as Error).stack}\n--- input ---\n${mutated.toString("latin1")}`);
      }
      if (r.problems.length === 0) {
        assert.ok(r.env, `iteration ${i}: no problems but no environment`);
        valid++;
      } else {
        for (const p of r.problems) {
          assert.ok(p.line >= 1 && p.column >= 1, `iteration ${i}: bad position ${JSON.stringify(p)}`);
          assert.ok(p.message.length > 0);
        }
        invalid++;
      }
    }
  } finally {
    cleanup();
  }
  assert.ok(invalid > 0 && valid + invalid === 400, `valid ${valid}, invalid ${invalid}`);
});

// A Harbor task folder loads as an environment of one task, as it is: instruction.md the
// prompt, tests/ the hidden tests, solve.sh the oracle, the Dockerfile on its stand-in base.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { expandHarborFolders, harborTaskDirs } from "../../src/core/harbor/load-harbor";
import { aggregate, scoreRollout } from "../../src/core/reward/score";

// A byte-for-byte copy of ../shared/datasets/harbor-tasks (Apache-2.0, LICENSE files inside), so a clone alone runs these tests.
const SAMPLE = path.join(__dirname, "../fixtures/harbor-tasks");
const TASKS = [
  "cancel-async-tasks",
  "cobol-modernization",
  "db-wal-recovery",
  "git-leak-recovery",
  "multi-reward",
  "polyglot-rust-c",
  "prove-plus-comm",
  "regex-log",
];

function harborTask(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-"));
  const dir = path.join(root, "my-task");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

const MINIMAL = {
  "task.toml": 'version = "1.0"\n[agent]\ntimeout_sec = 60.0\n[verifier]\ntimeout_sec = 30.0\n[environment]\ncpus = 2\nmemory = "1G"\n',
  "instruction.md": "Write hello to /app/out.txt\n",
  "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
  "solution/solve.sh": "#!/bin/bash\necho hello > /app/out.txt\n",
  "tests/test.sh": "#!/bin/bash\ngrep -q hello /app/out.txt && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
};

test("a minimal Harbor task: prompt, tests, oracle, limits, timeouts and image from its own files", () => {
  const t = harborTask(MINIMAL);
  try {
    chmodSync(path.join(t.dir, "solution/solve.sh"), 0o755);
    const { env, problems } = loadEnvironment(t.dir);
    assert.ok(env, problems.map((p) => p.message).join("\n"));
    assert.equal(problems.filter((p) => p.severity === "error").length, 0);
    assert.equal(env.manifest.name, "my-task");
    assert.equal(env.tasks.length, 1);
    const task = env.tasks[0];
    assert.equal(task?.prompt, "Write hello to /app/out.txt\n");
    assert.deepEqual(Object.keys(task?.tests?.files ?? {}), ["test.sh"]);
    const oracle = task?.solution?.commands?.[0] ?? "";
    assert.match(oracle, /\/solution\/solve\.sh > \/logs\/agent\/oracle\.txt 2>&1/);
    assert.ok(oracle.includes(Buffer.from(MINIMAL["solution/solve.sh"]).toString("base64")), "solve.sh's bytes travel in the command");
    const s = env.manifest.sandbox;
    assert.equal(s.workdir, "/app");
    assert.equal(s.user, "0:0");
    assert.equal(s.rootfs, "writable");
    assert.equal(s.limits.cpus, 2);
    assert.equal(s.limits.memory, "1024m");
    assert.equal(s.timeouts.rollout, 60);
    assert.deepEqual(env.manifest.reward, [{ type: "harbor", name: "reward", weight: 1, timeout: 30 }]);
    assert.match(s.image ?? "", /^rlenv\/harbor-my-task:[0-9a-f]{12}$/);
    assert.match(env.harbor?.image.dockerfile ?? "", /^FROM rlenv\/standin-ubuntu:/);
    const sub = problems.find((p) => p.file.endsWith("Dockerfile") && /ubuntu:24\.04/.test(p.message));
    assert.equal(sub?.severity, "warning", "the substitution is named");
    // The image tag follows the context's content: a tests edit keeps it, a context edit changes it.
    writeFileSync(path.join(t.dir, "tests/test.sh"), "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n");
    assert.equal(loadEnvironment(t.dir).env?.manifest.sandbox.image, s.image);
    writeFileSync(path.join(t.dir, "environment/data.txt"), "x");
    assert.notEqual(loadEnvironment(t.dir).env?.manifest.sandbox.image, s.image);
  } finally {
    t.cleanup();
  }
});

test("a Harbor task missing its parts: each missing file is an error naming it; [environment].env reaches oracle and verifier", () => {
  const t = harborTask({ "task.toml": 'version = "1.0"\n[environment]\nenv = { MODE = "x" }\n' });
  try {
    const { env, problems } = loadEnvironment(t.dir);
    assert.equal(env, null);
    const files = problems.filter((p) => p.severity === "error").map((p) => path.relative(t.dir, p.file));
    assert.deepEqual(files.sort(), ["environment/Dockerfile", "instruction.md", "tests/test.sh"]);
  } finally {
    t.cleanup();
  }
  const u = harborTask({ ...MINIMAL, "task.toml": `${MINIMAL["task.toml"]}env = { MODE = "x" }\n` });
  try {
    const { env } = loadEnvironment(u.dir);
    const harbor = env?.manifest.reward[0];
    assert.deepEqual(harbor?.type === "harbor" ? harbor.env : null, { MODE: "x" });
    assert.match(env?.tasks[0]?.solution?.commands?.[0] ?? "", /MODE=x;/);
  } finally {
    u.cleanup();
  }
});

test("a folder of Harbor tasks: expanded task by task; loading the folder itself says so", () => {
  const t = harborTask(MINIMAL);
  try {
    const folder = path.dirname(t.dir);
    assert.deepEqual(harborTaskDirs(folder), [t.dir]);
    assert.deepEqual(expandHarborFolders([folder]), [t.dir]);
    const { env, problems } = loadEnvironment(folder);
    assert.equal(env, null);
    assert.match(problems[0]?.message ?? "", /a folder of 1 Harbor tasks/);
    // The editor finds tasks by their task.toml and loads them through it.
    assert.equal(loadEnvironment(path.join(t.dir, "task.toml")).env?.manifest.name, "my-task");
  } finally {
    t.cleanup();
  }
});

test("the 8 sample tasks load with no error, each prompt its instruction.md and each substitution named", {
  skip: !existsSync(SAMPLE) && "no sample set",
}, () => {
  assert.deepEqual(
    expandHarborFolders([SAMPLE]).map((d) => path.basename(d)),
    TASKS,
  );
  for (const name of TASKS) {
    const { env, problems } = loadEnvironment(path.join(SAMPLE, name));
    assert.ok(env, `${name}: ${problems.map((p) => p.message).join("; ")}`);
    assert.deepEqual(
      problems.filter((p) => p.severity === "error"),
      [],
    );
    assert.ok(
      problems.some((p) => /is not pulled .* stand-in/.test(p.message)),
      `${name}: the base image substitution is named`,
    );
    assert.ok(env.tasks[0]?.tests?.files?.["test.sh"]);
    assert.ok(env.tasks[0]?.solution?.commands?.length);
  }
  const prove = loadEnvironment(path.join(SAMPLE, "prove-plus-comm")).env;
  assert.equal(prove?.manifest.sandbox.workdir, "/workspace");
  const wal = loadEnvironment(path.join(SAMPLE, "db-wal-recovery")).env;
  const db = wal?.harbor?.image.context.get("main.db");
  assert.ok(db?.bytes.includes(0), "binary build-context files are kept byte for byte");
  const multi = loadEnvironment(path.join(SAMPLE, "multi-reward")).env;
  assert.equal(multi?.manifest.sandbox.limits.memory, "2048m");
  assert.equal(multi?.manifest.reward[0]?.timeout, 120);
});

test("a verifier's split scores (reward.json's keys) become one component each, averaged into the total", async () => {
  // A stand-in for the harbor verifier, handed to the engine as a domain's verifier (they take precedence).
  const harbor = {
    type: "harbor" as const,
    verify: async () =>
      ({
        score: 0.5,
        passed: false,
        split: [
          { name: "correctness", score: 1 },
          { name: "performance", score: 0 },
        ],
      }) as never,
  };
  const ctx = { signal: new AbortController().signal } as never;
  const s = await scoreRollout([{ type: "harbor", name: "reward", weight: 1 }], ctx, [harbor]);
  assert.deepEqual(
    s.components.map((c) => [c.name, c.type, c.score, c.passed]),
    [
      ["correctness", "harbor", 1, true],
      ["performance", "harbor", 0, false],
    ],
  );
  assert.equal(s.total, 0.5);
  assert.equal(aggregate(s.components), 0.5);
});

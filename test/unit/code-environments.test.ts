import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { planVisibleTests } from "../../src/core/domains/code/visible-tests";
import { textFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const DATASET = path.join(REPO, "..", "shared", "datasets", "humaneval", "HumanEval.jsonl.gz");

function load(name: string) {
  const { env, problems } = loadEnvironment(path.join(REPO, "environments", name));
  assert.deepEqual(
    problems.map((p) => `${p.file}:${p.line}: ${p.message}`),
    [],
  );
  assert.ok(env);
  return env;
}

/** Every file under a folder, path → text. */
function tree(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${n.name}` : n.name;
    if (n.isDirectory()) Object.assign(out, tree(dir, r));
    else out[r] = readFileSync(path.join(dir, r), "utf8");
  }
  return out;
}

function tsx(script: string, ...args: string[]): string {
  return execFileSync(process.execPath, ["--import", "tsx", path.join(REPO, script), ...args], { cwd: REPO, encoding: "utf8" });
}

describe("code-humaneval", () => {
  test("164 tasks, each with a seed, a hidden check and an oracle", () => {
    const env = load("code-humaneval");
    assert.equal(env.tasks.length, 164);
    for (const t of env.tasks) {
      const entry = String(t.metadata?.entry_point);
      const [seed, solved] = [textFiles(t.files)["solution.py"], textFiles(t.solution?.files)["solution.py"]];
      assert.match(seed ?? "", new RegExp(`def ${entry}\\(`));
      const check = textFiles(t.tests?.files)["_hidden_check.py"] ?? "";
      assert.match(check, new RegExp(`^check\\(${entry}\\)$`, "m"));
      assert.ok((solved ?? "").startsWith(seed ?? "\0"), `${t.id}: the oracle extends the seed`);
      assert.equal(t.visible_tests?.["_hidden_check.py"], undefined, "the hidden check is never visible");
    }
  });
  test("the committed environment is what the script builds from the dataset", {
    skip: existsSync(DATASET) ? false : `dataset missing: ${DATASET}`,
  }, () => {
    const out = mkdtempSync(path.join(tmpdir(), "rlenv-he-"));
    try {
      tsx("scripts/build-humaneval.ts", DATASET, "--out", out);
      assert.deepEqual(tree(out), tree(path.join(REPO, "environments", "code-humaneval")));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("code-stdio", () => {
  test("at least 10 tasks judged on stdin/stdout cases, none expecting empty output", () => {
    const env = load("code-stdio");
    assert.ok(env.tasks.length >= 10, `${env.tasks.length} tasks`);
    const v = env.manifest.reward[0];
    assert.equal(v?.type === "tests" && v.format, "stdio");
    for (const t of env.tasks) {
      const cases = t.tests?.cases ?? [];
      assert.ok(cases.length >= 4, `${t.id}: ${cases.length} cases`);
      for (const c of cases) assert.notEqual(c.stdout.trim(), "", `${t.id}: empty expected output would let nop pass`);
      const plan = planVisibleTests(env, t);
      assert.equal(plan.kind, "stdio");
      if (plan.kind === "stdio") assert.equal(plan.cases.length, 2);
    }
  });
  test("the committed tasks are what the script writes", () => {
    const out = mkdtempSync(path.join(tmpdir(), "rlenv-stdio-"));
    try {
      tsx("scripts/envs/build-code-stdio.ts", "--out", out);
      assert.deepEqual(tree(out), tree(path.join(REPO, "environments", "code-stdio")));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("code-repo-bugfix", () => {
  test("at least 5 multi-file repositories whose fix spans two files, with pytest tests and a patch", () => {
    const env = load("code-repo-bugfix");
    assert.ok(env.tasks.length >= 5);
    for (const t of env.tasks) {
      const patch = t.solution?.patch ?? "";
      const touched = [...patch.matchAll(/^\+\+\+ b\/(\S+)/gm)].map((m) => m[1]);
      assert.equal(new Set(touched).size, 2, `${t.id}: the patch touches ${touched.join(", ")}`);
      for (const f of touched) assert.ok(t.files?.[f ?? ""], `${t.id}: patched file ${f} is in the repository`);
      assert.ok(Object.keys(t.files ?? {}).filter((f) => f.endsWith(".py")).length >= 3, `${t.id}: a package of several files`);
      assert.ok(
        Object.keys(t.tests?.files ?? {}).some((f) => /^tests\/test_hidden_\w+\.py$/.test(f)),
        `${t.id}: hidden tests match the verifier's glob`,
      );
      const plan = planVisibleTests(env, t);
      assert.equal(plan.kind, "command");
      if (plan.kind === "command") assert.match(plan.command, /^python3 -m pytest .*tests\/test_\w+\.py$/);
    }
  });
  test("the stored patches are what the fixes produce", () => {
    tsx("scripts/envs/build-code-repo-bugfix.ts", "--check");
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../../support/cli";
import { makeEnvDir } from "../../support/tmp-env";

test("rlenv new scaffolds environments that rlenv validate accepts", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-new-"));
  try {
    const all = ["my-code", "my-custom", "my-scene3d", "my-document"];
    for (const domain of ["code", "custom", "scene3d", "document"]) {
      const r = rlenv(["new", domain, `my-${domain}`], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`created my-${domain}/`));
      // Each scaffold says what to change first.
      assert.match(readFileSync(path.join(dir, `my-${domain}`, "README.md"), "utf8"), /## What to change first/);
    }
    // The custom scaffold is its own example (custom tools, a script verifier), not the code one renamed.
    const custom = readFileSync(path.join(dir, "my-custom/environment.yaml"), "utf8");
    assert.match(custom, /domain: custom/);
    assert.match(custom, /- name: kv_set/);
    assert.doesNotMatch(custom, /Write small Python functions/);
    // The document scaffold keeps its gold values where the shipped document environments do: target.<field>.
    const doc = JSON.parse(readFileSync(path.join(dir, "my-document/tasks.jsonl"), "utf8")) as { target: Record<string, unknown> };
    assert.equal(doc.target.answer, "$1,577 million");
    const v = rlenv(["validate", ...all], { cwd: dir });
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /^✓ my-code: 1 task$/m);
    assert.doesNotMatch(v.stdout, /warning/);
    // Each template's oracle reaches its threshold and nop does not (the scene3d one once had Y up, in a Z-up domain).
    const run = rlenv(["validate", "--run", "--sandbox", "process", ...all], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stdout.split("\n").filter((l) => /^✓ my-[a-z0-9]+: 1 task validated/.test(l)).length, 4, run.stdout);
    const again = rlenv(["new", "code", "my-code"], { cwd: dir });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /exists and is not empty/);
    const bad = rlenv(["new", "chemistry", "x"], { cwd: dir });
    assert.match(bad.stderr, /unknown domain 'chemistry'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("rlenv validate prints file:line:col problems, exits 1, and --json is machine-readable", () => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": "name: b\ndomain: code\ntasks: t.jsonl\nreward:\n  - type: exact\nmax_turn: 3\n",
    "t.jsonl": '{"id":"a","prompt":"x"}\n{"id":"b"}\n',
  });
  try {
    const r = rlenv(["validate", "."], { cwd: dir });
    assert.equal(r.code, 1);
    // The task file is checked too although the manifest has a problem: both come in one round.
    assert.equal(
      r.stdout,
      `environment.yaml:6:1: error: max_turn: unknown field 'max_turn' (did you mean 'max_turns'?)\nt.jsonl:2:1: error: tasks[1]: missing required field 'prompt' (a string)\n✗ ${path.basename(dir)}: 2 problems\n`,
    );
    const j = rlenv(["validate", "--json", dir]);
    assert.equal(j.code, 1);
    const parsed = JSON.parse(j.stdout) as {
      ok: boolean;
      environments: Array<{ problems: Array<{ line: number; column: number; path: string }> }>;
    };
    assert.equal(parsed.ok, false);
    assert.deepEqual(
      parsed.environments[0]!.problems.map((p) => [p.line, p.column, p.path]),
      [
        [6, 1, "max_turn"],
        [2, 1, "tasks[1]"],
      ],
    );
  } finally {
    cleanup();
  }
});

test("rlenv --version and --help", () => {
  assert.match(rlenv(["--version"]).stdout, /^(\d+\.\d+\.\d+|dev)\n$/);
  const h = rlenv(["validate", "--help"]);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /--json/);
});

test("rlenv validate runs the domain's own task checks: a scene check naming an unknown check is reported at its line", () => {
  const task = { id: "bad", prompt: "p", target: { checks: [{ check: "distnce", a: "t", b: "t" }] } };
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": "name: s\ndomain: scene3d\nscene:\n  assets: assets\ntasks: tasks.jsonl\nreward:\n  - type: scene\n",
    "tasks.jsonl": `{"id":"ok","prompt":"p","target":{"checks":[]}}\n${JSON.stringify(task)}\n`,
    "assets/.keep": "",
  });
  try {
    const r = rlenv(["validate", "."], { cwd: dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const col = JSON.stringify(task).indexOf('"distnce"') + 1;
    assert.match(
      r.stdout,
      new RegExp(`^tasks\\.jsonl:2:${col}: error: tasks\\[1\\]\\.target\\.checks\\[0\\]\\.check: unknown check "distnce"`, "m"),
    );
  } finally {
    cleanup();
  }
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { isolated } from "../../../src/cli/commands/validate";
import type { Problem } from "../../../src/core/model/problem";
import { templateFiles } from "../../../src/core/environment/templates";
import { HOSTILE_CASES, writeHostileCase } from "../environment/hostile-cases";
import { rlenvArgv } from "../../support/cli";

test("rlenv validate --json over every hostile folder at once: one document, every folder reported with its positioned problem", () => {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-hostile-cli-"));
  try {
    // The cases that need small caps cannot be given them on the command line: they are the loader test's.
    const cases = HOSTILE_CASES.filter((c) => !c.limits);
    const dirs = cases.map((c, i) => writeHostileCase(c, path.join(root, `case-${i}`)).dir);
    const good = writeHostileCase(
      { name: "good", files: () => templateFiles("code", "fine"), expect: { file: "", line: 1, message: /./ } },
      path.join(root, "good"),
    ).dir;
    const r = spawnSync(...rlenvArgv(["validate", "--json", ...dirs, good]), {
      cwd: root,
      encoding: "utf8",
      // Generous watchdog: a hang fails the test rather than stalling the suite.
      timeout: 600_000,
      maxBuffer: 512 * 1024 * 1024,
    });
    assert.equal(r.signal, null, `rlenv validate was killed (${r.signal}): it hung\n${r.stderr.slice(-2000)}`);
    assert.equal(r.status, 1, r.stderr.slice(-2000));
    const doc = JSON.parse(r.stdout) as { ok: boolean; environments: Array<{ dir: string; tasks: number; problems: Problem[] }> };
    assert.equal(doc.ok, false);
    assert.equal(doc.environments.length, dirs.length + 1);
    cases.forEach((c, i) => {
      const env = doc.environments.find((e) => e.dir === dirs[i]);
      assert.ok(env, `${c.name}: its folder is missing from the report`);
      const file = path.join(dirs[i]!, c.expect.file);
      assert.ok(
        env.problems.some((p) => p.file === file && p.line === c.expect.line && c.expect.message.test(p.message)),
        `${c.name}: expected ${c.expect.file}:${c.expect.line} ${c.expect.message}, got ${JSON.stringify(env.problems.slice(0, 3))}`,
      );
    });
    const fine = doc.environments.find((e) => e.dir === good);
    assert.deepEqual(
      fine?.problems.filter((p) => p.severity === "error"),
      [],
    );
    assert.equal(fine?.tasks, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a folder whose validation throws reports an internal error at its path; the others' results stand", async () => {
  const results = await Promise.all([
    isolated("a", async () => {
      throw new RangeError("Maximum call stack size exceeded");
    }),
    isolated("b", async () => ({ dir: "b", tasks: 3, problems: [] })),
  ]);
  assert.equal(results[0]?.dir, path.resolve("a"));
  assert.match(results[0]?.problems[0]?.message ?? "", /internal error while validating this folder: Maximum call stack size exceeded/);
  assert.equal(results[0]?.problems[0]?.line, 1);
  assert.deepEqual(results[1], { dir: "b", tasks: 3, problems: [] });
});

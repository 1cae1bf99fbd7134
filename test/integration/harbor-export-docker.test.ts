// Environments exported as Harbor tasks, run back as Harbor tasks by this tool's Harbor loader
// on Docker: an exported code-stdio task and exported document-financebench figure tasks
// (money with a citation check, percent, a plain figure) score their own oracle 1 and nop 0,
// graded inside the container by the exported test.sh (grader.py writing reward.json).
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";

const ROOT = path.join(__dirname, "../..");

test("exported code-stdio and document-financebench tasks pass their own oracle (and fail nop) as Harbor tasks on docker", {
  skip: missing("docker") || missing("image"),
  timeout: 900_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-export-"));
  try {
    const out = path.join(root, "exported");
    for (const env of ["code-stdio", "document-financebench"]) {
      const r = rlenv(["export", "harbor", path.join(ROOT, "environments", env), "--out", out], { timeoutMs: 120_000 });
      assert.equal(r.code, 0, r.stderr);
    }
    const pick = path.join(root, "tasks");
    mkdirSync(pick);
    const kinds = new Map<string, string>();
    for (const line of readFileSync(path.join(ROOT, "environments/document-financebench/tasks.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)) {
      const t = JSON.parse(line) as { id: string; target: { grading: { answer: { comparator: string; cite?: boolean } } } };
      const g = t.target.grading.answer;
      const kind = g.cite ? "cited money" : g.comparator;
      if (kind !== "judge" && !kinds.has(kind)) kinds.set(kind, t.id);
    }
    const picked = ["fibonacci", ...kinds.values()];
    for (const id of picked) cpSync(path.join(out, id), path.join(pick, id), { recursive: true });
    const runs = path.join(root, "runs");
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, pick], { timeoutMs: 880_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
    for (const id of picked) assert.match(r.stdout, new RegExp(`✓ ${id}/${id}: oracle 1, nop 0`));
    assert.equal(picked.length, 5, `figure kinds found: ${[...kinds.keys()]}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

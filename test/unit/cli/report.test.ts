import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../../support/cli";
import { writeSyntheticRun } from "../../support/synthetic-run";
import { makeEnvDir } from "../../support/tmp-env";

test("rlenv report: JSON, HTML and --emit-tasks from a run folder alone; two runs are compared", () => {
  const parent = mkdtempSync(path.join(tmpdir(), "rlenv-report-cli-"));
  const rolls = (task: string, rewards: number[]) => rewards.map((reward, sample) => ({ task, sample, reward }));
  const a = writeSyntheticRun(parent, "a", [...rolls("solved", [1, 1]), ...rolls("mixed", [1, 0]), ...rolls("<b>hard</b>", [0, 0])], 2);
  const b = writeSyntheticRun(parent, "b", [...rolls("solved", [1, 1]), ...rolls("mixed", [1, 1]), ...rolls("<b>hard</b>", [1, 0])], 2);
  const emitted = path.join(parent, "learnable.txt");
  const html = path.join(parent, "report.html");
  const r = rlenv(["report", a, b, "--json", "--html", html, "--emit-tasks", emitted, "--band", "learnable"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    reports: Array<{ run_id: string; bands: Record<string, number> }>;
    comparisons: Array<{ a: string; b: string; tasks: Array<{ task: string; a_band: string; b_band: string }> }>;
  };
  assert.deepEqual(
    out.reports.map((x) => [x.run_id, x.bands]),
    [
      ["a", { always: 1, learnable: 1, never: 1 }],
      ["b", { always: 2, learnable: 1, never: 0 }],
    ],
  );
  assert.deepEqual(
    out.comparisons[0]!.tasks.filter((t) => t.a_band !== t.b_band).map((t) => t.task),
    ["<b>hard</b>", "mixed"],
  );
  // The last run's learnable tasks, behind a comment naming where they came from.
  assert.deepEqual(readFileSync(emitted, "utf8").split("\n").slice(1), ["<b>hard</b>", ""]);
  assert.match(readFileSync(emitted, "utf8"), /^# rlenv report .*b --band learnable: 1 tasks\n/);
  const page = readFileSync(html, "utf8");
  assert.ok(page.includes("&lt;b&gt;hard&lt;/b&gt;") && !page.includes("<b>hard</b>"), "task ids are escaped in the page");
  // Text mode names the verdict; a bad band is refused.
  assert.match(rlenv(["report", a, b]).stdout, /b against a: .*(noise|better)/);
  const bad = rlenv(["report", a, "--band", "easy"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--band must be always, learnable or never, got 'easy'/);
});

test("rlenv run --tasks-file runs the emitted tasks; an unknown id is named with its file and line", () => {
  const task = (id: string, answer: string) => JSON.stringify({ id, prompt: "Submit 42.", target: "42", solution: { answer } });
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": [
      "name: bands",
      "domain: custom",
      "tasks: tasks.jsonl",
      "tools: [submit]",
      "reward:",
      "  - type: exact",
      "    name: answer",
      "",
    ].join("\n"),
    "tasks.jsonl": [task("right-1", "42"), task("wrong", "41"), task("right-2", "42")].join("\n"),
  });
  try {
    const runs = path.join(dir, "runs");
    const base = ["--policy", "oracle", "--sandbox", "process", "--runs", runs];
    // Six samples a task under the default --concurrency auto: enough policy replies (18) for its first decision.
    const first = rlenv(["run", dir, ...base, "-k", "6", "--run-id", "all"], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    const decisions = readFileSync(path.join(runs, "all", "concurrency.jsonl"), "utf8")
      .trim()
      .split("\n");
    assert.ok(decisions.length >= 1 && JSON.parse(decisions[0]!).limit >= 1, decisions.join("\n"));
    const file = path.join(dir, "always.txt");
    assert.equal(rlenv(["report", path.join(runs, "all"), "--emit-tasks", file, "--band", "always"]).code, 0);
    assert.deepEqual(readFileSync(file, "utf8").split("\n").slice(1), ["right-1", "right-2", ""]);
    const second = rlenv(["run", dir, ...base, "-k", "2", "--run-id", "chosen", "--tasks-file", file], { cwd: dir });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(readdirSync(path.join(runs, "chosen", "rollouts")).sort(), [
      "right-1.s0.jsonl",
      "right-1.s1.jsonl",
      "right-2.s0.jsonl",
      "right-2.s1.jsonl",
    ]);
    writeFileSync(file, "# picked by hand\nright-1\n\nright-3\nright-1\n");
    const bad = rlenv(["run", dir, ...base, "--concurrency", "2", "--run-id", "bad", "--tasks-file", file], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /always\.txt:4: unknown task id 'right-3'/);
    assert.match(bad.stderr, /always\.txt:5: task id 'right-1' repeats line 2/);
  } finally {
    cleanup();
  }
});

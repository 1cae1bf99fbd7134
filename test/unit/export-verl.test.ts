// `rlenv export verl DIR… --out FILE`: every task as a row of verl's RL dataset, with the nested
// Parquet types verl's example datasets have, read back by DuckDB and hyparquet.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { parquetReadObjects } from "hyparquet";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { type VerlRow, verlRows, verlRowsToParquet } from "../../src/core/runs/export-verl";
import { rlenv } from "../support/cli";

const repo = path.resolve(import.meta.dirname, "../..");
const load = (name: string): Environment => {
  const { env } = loadEnvironment(path.join(repo, "environments", name));
  if (!env) throw new Error(`${name} does not load`);
  return env;
};

test("verl rows: the prompt the rollout starts from, the domain, the task to score by, and where to find it", () => {
  const humaneval = load("code-humaneval");
  const stdio = load("code-stdio");
  const rows = verlRows([humaneval, stdio], "train");
  assert.equal(rows.length, humaneval.tasks.length + stdio.tasks.length);
  const first = rows[0]!;
  const task = humaneval.tasks[0]!;
  assert.equal(first.data_source, "rlenv/code-humaneval");
  assert.equal(first.ability, "code");
  assert.deepEqual(first.reward_model, { style: "rlenv", ground_truth: task.id });
  assert.equal(first.prompt.at(-1)?.role, "user");
  assert.ok(first.prompt.at(-1)?.content.includes(task.prompt.slice(0, 40)), "the user message holds the task's prompt");
  assert.equal(first.agent_name, "tool_agent");
  // Numbered across the environments, each row saying which environment and task it is.
  assert.deepEqual(
    rows.map((r) => r.extra_info.index),
    rows.map((_, i) => i),
  );
  const last = rows.at(-1)!;
  assert.deepEqual(
    [last.extra_info.env, last.extra_info.task_id, last.extra_info.env_dir],
    ["code-stdio", stdio.tasks.at(-1)!.id, stdio.dir],
  );
  assert.deepEqual(last.extra_info.interaction_kwargs, { name: "rlenv", env_dir: stdio.dir, task_id: stdio.tasks.at(-1)!.id });
  // Reward integrity: the hidden tests stay out of a dataset the trainer (and what it runs) reads.
  const hiddenFiles = humaneval.tasks.flatMap((t) => Object.values(t.tests?.files ?? {}).map((f) => JSON.stringify(f)));
  assert.ok(hiddenFiles.length > 0, "the fixture has hidden test files");
  const written = JSON.stringify(rows);
  for (const f of hiddenFiles) assert.ok(!written.includes(f.slice(1, 80)), "no hidden test file in the dataset");
});

test("verl parquet: prompt list<struct>, reward_model and extra_info structs, read back whole by DuckDB and hyparquet", async () => {
  const rows = verlRows([load("code-stdio")], "test");
  const file = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-verl-")), "tasks.parquet");
  writeFileSync(file, verlRowsToParquet(rows));
  const db = await (await DuckDBInstance.create()).connect();
  const types = (await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
  const typeOf = Object.fromEntries(types.map((c) => [c.column_name as string, c.column_type as string]));
  assert.equal(typeOf.prompt, 'STRUCT("role" VARCHAR, "content" VARCHAR)[]');
  assert.equal(typeOf.reward_model, "STRUCT(style VARCHAR, ground_truth VARCHAR)");
  assert.match(typeOf.extra_info ?? "", /^STRUCT\(split VARCHAR, "index" BIGINT, env VARCHAR, .*interaction_kwargs STRUCT\(/);
  const duck = (await db.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson() as unknown as VerlRow[];
  const hyp = (await parquetReadObjects({
    file: readFileSync(file).buffer.slice(0) as ArrayBuffer,
  })) as unknown as VerlRow[];
  for (const got of [duck, hyp]) {
    assert.equal(got.length, rows.length);
    for (const [i, want] of rows.entries()) {
      const g = got[i]!;
      assert.deepEqual(g.prompt, want.prompt);
      assert.deepEqual(g.reward_model, want.reward_model);
      assert.deepEqual({ ...g.extra_info, index: Number(g.extra_info.index) }, want.extra_info);
      assert.equal(g.data_source, want.data_source);
    }
  }
});

test("rlenv export verl: writes the file; an environment that does not load writes nothing and exits 1", () => {
  const out = mkdtempSync(path.join(tmpdir(), "rlenv-verl-cli-"));
  const file = path.join(out, "train.parquet");
  const ok = rlenv(["export", "verl", path.join(repo, "environments", "code-stdio"), "--out", file]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, /exported \d+ tasks of 1 environment as a verl dataset/);
  assert.ok(readFileSync(file).length > 0);
  const bad = rlenv(["export", "verl", path.join(repo, "environments", "code-stdio"), out, "--out", path.join(out, "b.parquet")]);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /does not load/);
  assert.throws(() => readFileSync(path.join(out, "b.parquet")));
});

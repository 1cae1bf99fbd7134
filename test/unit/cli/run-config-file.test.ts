// `rlenv run -c FILE`: every run option from a YAML or JSON file, the command line's flags over
// it, and a misspelt key an error naming the file, line and field (exit 2), never dropped.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { readRunFile } from "../../../src/core/app/run-file";
import { rlenvArgv } from "../../support/cli";

let work: string;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-run-file-"));
  // A document environment: it runs in-process, so the oracle needs no sandbox.
  const env = path.join(work, "env");
  mkdirSync(path.join(env, "docs"), { recursive: true });
  writeFileSync(path.join(env, "docs", "ACME_2020_10K.txt"), "ACME Corp 2020\nNet sales\t1000\t900\n");
  writeFileSync(
    path.join(env, "environment.yaml"),
    "name: run-file\ndomain: document\ntasks: tasks.jsonl\ndocuments: { path: docs }\ntools: [list_documents, search, read, find, submit_report]\nmax_turns: 5\nreward:\n  - type: fields\n    fields:\n      answer: { comparator: auto }\n",
  );
  const tasks = ["t1", "t2", "t3"].map((id) => ({
    id,
    prompt: "What were ACME's 2020 net sales?",
    target: { answer: "1000", grading: { answer: { comparator: "number" } } },
    solution: { answer: { answer: "1000", citations: [{ document: "ACME_2020_10K.txt", page: 1 }] } },
  }));
  writeFileSync(path.join(env, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
});
after(() => rmSync(work, { recursive: true, force: true }));

function rlenv(args: string[], cwd = work) {
  return spawnSync(...rlenvArgv(args), {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, RLENV_CACHE_DIR: path.join(work, "cache") },
  });
}

const config = (runDir: string) => JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")).config;

describe("rlenv run -c FILE", () => {
  test("the file's options run, its paths relative to the file; flags on the command line override it", () => {
    const confDir = path.join(work, "conf");
    mkdirSync(confDir, { recursive: true });
    writeFileSync(
      path.join(confDir, "run.yaml"),
      "# a run config\nenv: ../env\npolicy: oracle\nsamples: 2\ntasks: t1,t2\nlimit: 1\nconcurrency: 1\nseed: 7\nruns: ../runs-from-file\nrun_id: from-file\nsandbox: process\n",
    );
    const r = rlenv(["run", "-c", "conf/run.yaml"]);
    assert.equal(r.status, 0, r.stderr);
    const c = config(path.join(work, "runs-from-file", "from-file"));
    assert.equal(c.k, 2);
    assert.deepEqual(c.tasks, ["t1"]);
    assert.equal(c.seed, 7);
    assert.equal(c.concurrency, 1);
    assert.equal(c.concurrency_auto, undefined);

    const o = rlenv(["run", "-c", "conf/run.yaml", "-k", "1", "--run-id", "from-cli", "--tasks", "t3"]);
    assert.equal(o.status, 0, o.stderr);
    const oc = config(path.join(work, "runs-from-file", "from-cli"));
    assert.equal(oc.k, 1);
    assert.deepEqual(oc.tasks, ["t3"]);
    assert.equal(oc.seed, 7, "what the command line leaves alone still comes from the file");
  });

  test("JSON is read the same way, with positions", () => {
    writeFileSync(path.join(work, "run.json"), '{\n  "policy": "nop",\n  "samples": 1,\n  "runs": "runs-json",\n  "run_id": "j"\n}\n');
    const r = rlenv(["run", "env", "-c", "run.json", "--concurrency", "2"]);
    assert.equal(r.status, 0, r.stderr);
    const c = config(path.join(work, "runs-json", "j"));
    assert.equal(c.policy.kind, "nop");
    assert.equal(c.concurrency, 2);
  });

  test("an unknown key, a wrong type or a bad value is exit 2 naming file:line:column and the field; nothing runs", () => {
    writeFileSync(path.join(work, "bad.yaml"), "policy: oracle\nsampels: 2\nconcurrency: lots\nrun_id: bad\n");
    const r = rlenv(["run", "env", "-c", "bad.yaml", "--runs", "runs-bad"]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /bad\.yaml:2:1: error: sampels: unknown field 'sampels' \(did you mean 'samples'\?\)/);
    assert.match(r.stderr, /bad\.yaml:3:14: error: concurrency:/);
    assert.match(r.stderr, /the run config file has 2 problems/);
    assert.equal(existsSync(path.join(work, "runs-bad")), false, "no run folder was made");
  });
});

describe("readRunFile", () => {
  test("YAML syntax errors, a list instead of a mapping and a missing file are positioned problems", () => {
    const f = path.join(work, "x.yaml");
    writeFileSync(f, "policy: oracle\npolicy: nop\n");
    assert.match(readRunFile(f).problems[0]?.message ?? "", /'policy' is given twice/);
    writeFileSync(f, "- policy\n");
    assert.match(readRunFile(f).problems[0]?.message ?? "", /mapping of run options/);
    assert.match(readRunFile(path.join(work, "none.yaml")).problems[0]?.message ?? "", /cannot read the run config file: ENOENT/);
    writeFileSync(f, "");
    assert.deepEqual(readRunFile(f), { data: {}, problems: [] });
  });

  test("paths come back absolute against the file's folder; s3:// and replay: are handled", () => {
    const f = path.join(work, "sub", "p.yaml");
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, "env: e\nruns: s3://bucket/runs\npolicy: replay:old/run\ntasks_file: ids.txt\n");
    const { data } = readRunFile(f);
    assert.equal(data?.env, path.join(work, "sub", "e"));
    assert.equal(data?.runs, "s3://bucket/runs");
    assert.equal(data?.policy, `replay:${path.join(work, "sub", "old", "run")}`);
    assert.equal(data?.tasks_file, path.join(work, "sub", "ids.txt"));
  });
});

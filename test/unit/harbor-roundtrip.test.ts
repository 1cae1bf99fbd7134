// Import → export → import of the 8 sample Harbor tasks is lossless, field by field and byte
// for byte; what export writes (from an imported task or from a native environment) passes
// Harbor's own task config model (written again in ./harbor-model.ts).
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { parse } from "smol-toml";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { exportHarbor } from "../../src/core/harbor/export";
import { importHarbor } from "../../src/core/harbor/import";
import { expandHarborFolders } from "../../src/core/harbor/load-harbor";
import { harborTaskConfigErrors, harborTaskErrors } from "./harbor-model";

const ROOT = path.join(__dirname, "../..");
// A byte-for-byte copy of ../shared/datasets/harbor-tasks (Apache-2.0, LICENSE files inside), so a clone alone runs these tests.
const SAMPLE = path.join(ROOT, "test/fixtures/harbor-tasks");

function files(dir: string, rel = ""): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(path.join(dir, r)).isDirectory()) for (const [k, v] of files(dir, r)) out.set(k, v);
    else out.set(r, readFileSync(path.join(dir, r)));
  }
  return out;
}

/** A file's permission bits, as `ls` shows them ("644"). */
const modeOf = (dir: string, rel: string) => (statSync(path.join(dir, rel)).mode & 0o777).toString(8);

/** What a loaded environment holds, without where it lies. */
function fields(env: Environment): unknown {
  return {
    manifest: env.manifest,
    prompts: env.prompts,
    tools: env.builtinTools,
    tasks: env.tasks.map(({ source: _source, ...t }) => t),
  };
}

test("Harbor's config model (as written again) accepts Harbor's fields and refuses what pydantic refuses", () => {
  assert.deepEqual(harborTaskConfigErrors({ version: "1.0", environment: { cpus: 1, memory: "2G" }, verifier: { timeout_sec: 900 } }), []);
  assert.deepEqual(harborTaskConfigErrors({ schema_version: "1.3", task: { name: "org/x" }, extra: 1 }), []);
  assert.equal(harborTaskConfigErrors({ environment: { cpus: 1.5 } }).length, 1);
  assert.equal(harborTaskConfigErrors({ environment: { memory: "lots" } }).length, 1);
  assert.equal(harborTaskConfigErrors({ verifier: { env: { N: 3 } } }).length, 1);
  assert.equal(harborTaskConfigErrors({ task: { name: "no-org" } }).length, 1);
  assert.equal(harborTaskConfigErrors({ environment: { network_mode: "public", allowed_hosts: ["a.b"] } }).length, 1);
  assert.equal(harborTaskConfigErrors({ agent: { timeout_sec: "10" } }).length, 1);
});

test("the 8 sample tasks: import → export → import is lossless, and every exported task passes Harbor's model", {
  skip: !existsSync(SAMPLE) && "no sample set",
}, () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-rt-"));
  try {
    const tasks = expandHarborFolders([SAMPLE]);
    assert.equal(tasks.length, 8);
    const first = importHarbor(tasks, path.join(tmp, "native1"));
    assert.deepEqual(first.failed, []);
    assert.equal(first.written.length, 8);
    for (const dir of first.written) {
      const { env, problems } = loadEnvironment(dir);
      assert.ok(env, `${dir}: ${problems.map((p) => p.message).join("; ")}`);
      assert.deepEqual(
        problems.filter((p) => p.severity === "error"),
        [],
      );
      const out = exportHarbor(env, path.join(tmp, "harbor"));
      assert.deepEqual(out.warnings, []);
    }
    for (const src of tasks) {
      const name = path.basename(src);
      const back = path.join(tmp, "harbor", name);
      assert.deepEqual(harborTaskErrors(back), [], `${name}: Harbor would refuse the export`);
      // Field by field, then byte for byte: task.toml's fields, instruction, environment, tests, solution and extras.
      assert.deepEqual(parse(readFileSync(path.join(back, "task.toml"), "utf8")), parse(readFileSync(path.join(src, "task.toml"), "utf8")));
      const a = files(src);
      const b = files(back);
      assert.deepEqual([...b.keys()], [...a.keys()], `${name}: the same files`);
      for (const [k, v] of a) assert.ok(v.equals(b.get(k) as Buffer), `${name}/${k}: the same bytes`);
      // And the same modes: a 644 solve.sh or test.sh stays 644 (Harbor runs `chmod +x` itself).
      for (const k of a.keys()) assert.equal(modeOf(back, k), modeOf(src, k), `${name}/${k}: the same mode`);
    }
    const second = importHarbor(
      tasks.map((t) => path.join(tmp, "harbor", path.basename(t))),
      path.join(tmp, "native2"),
    );
    assert.deepEqual(second.failed, []);
    for (const dir of first.written) {
      const again = path.join(tmp, "native2", path.basename(dir));
      const one = loadEnvironment(dir).env;
      const two = loadEnvironment(again).env;
      assert.ok(one && two);
      assert.deepEqual(fields(two), fields(one), `${path.basename(dir)}: the re-imported environment holds the same fields`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a native environment exported as Harbor tasks: Harbor's model accepts each, prompt, seed files and tests carried", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-export-"));
  try {
    const env = loadEnvironment(path.join(ROOT, "environments/code-stdio")).env;
    assert.ok(env);
    const out = exportHarbor(env, tmp);
    assert.equal(out.written.length, env.tasks.length);
    assert.deepEqual(out.warnings, []);
    for (const dir of out.written) assert.deepEqual(harborTaskErrors(dir), [], dir);
    const task = env.tasks[0];
    assert.ok(task);
    const dir = path.join(tmp, task.id);
    assert.match(readFileSync(path.join(dir, "instruction.md"), "utf8"), /Write the program in solution\.py/);
    assert.match(readFileSync(path.join(dir, "environment/Dockerfile"), "utf8"), /^FROM debian:bookworm-slim$/m);
    assert.ok(existsSync(path.join(dir, "tests/stdio_runner.py")));
    const cases = JSON.parse(readFileSync(path.join(dir, "tests/stdio_0.json"), "utf8"));
    assert.deepEqual(cases.cases, task.tests?.cases);
    const doc = loadEnvironment(path.join(ROOT, "environments/document-financebench")).env;
    if (doc) {
      const d = exportHarbor(doc, path.join(tmp, "doc"));
      assert.ok(
        d.warnings.some((w) => /graded by rlenv's own code/.test(w)),
        "a verifier Harbor cannot run is said, not dropped",
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("export keeps executable bits: seed files in the image's build context, hidden files, the solution's writes", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-modes-"));
  try {
    const src = path.join(tmp, "env");
    const t = path.join(src, "tasks/t1");
    const put = (rel: string, text: string, mode: number) => {
      mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
      writeFileSync(path.join(t, rel), text);
      chmodSync(path.join(t, rel), mode);
    };
    put("files/run.sh", "#!/bin/sh\necho ran\n", 0o755);
    put("files/data.txt", "plain\n", 0o644);
    put("tests/check.sh", "#!/bin/sh\n./run.sh\n", 0o755);
    put("tests/expected.txt", "ran\n", 0o644);
    put("solution/go.sh", "#!/bin/sh\necho go\n", 0o700);
    put("solution/notes.txt", "done\n", 0o644);
    writeFileSync(path.join(t, "task.yaml"), "prompt: Run it\n");
    writeFileSync(
      path.join(src, "environment.yaml"),
      "name: modes\ndomain: code\nsandbox: { workdir: /workspace }\ntasks: tasks\ntools: [bash, submit]\nreward:\n  - type: tests\n    command: ./check.sh\n    format: exit-code\n",
    );
    const { env, problems } = loadEnvironment(src);
    assert.deepEqual(problems, []);
    assert.ok(env);
    const out = exportHarbor(env, path.join(tmp, "out"));
    const dir = out.written[0];
    assert.ok(dir);
    const mode = (rel: string) => (statSync(path.join(dir, rel)).mode & 0o777).toString(8);
    assert.equal(mode("environment/rlenv-seed/run.sh"), "755");
    assert.equal(mode("environment/rlenv-seed/data.txt"), "644");
    assert.equal(mode("tests/files/check.sh"), "755");
    assert.equal(mode("tests/files/expected.txt"), "644");
    const solve = readFileSync(path.join(dir, "solution/solve.sh"), "utf8");
    assert.match(solve, /chmod 755 go\.sh/);
    assert.doesNotMatch(solve, /chmod 755 notes\.txt/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { flakinessOf, parityOf } from "../../src/core/audit/flakiness";
import { answerVariants, stringVariants } from "../../src/core/audit/perturb-answer";
import { sceneVariants } from "../../src/core/audit/perturb-scene";
import { editablePythonFiles, patchedFiles, probeVars } from "../../src/core/audit/probe-vars";
import { builtinProbesDir, loadProbes, probePolicy } from "../../src/core/audit/probes";
import type { AuditOutcome } from "../../src/core/audit/run-batch";
import { loadEnvironment } from "../../src/core/environment/load-environment";

const byOp = (vs: Array<{ operator: string; answer: unknown }>) => Object.fromEntries(vs.map((v) => [v.operator, v.answer]));

test("answer perturbations: wrong figures around the gold, and correct reformattings of it", () => {
  const vs = stringVariants("$1,577 million");
  const ops = byOp(vs.filter((v) => v.expect === "reject"));
  assert.equal(ops["plus-1-percent"], "$1,593 million");
  assert.equal(ops["minus-10-percent"], "$1,419 million");
  assert.equal(ops.sign, "-$1,577 million");
  assert.equal(ops["scale-x1000"], "$1,577,000 million");
  assert.equal(ops["unit-swap"], "$1,577 billion");
  assert.equal(ops.empty, "");
  const ok = byOp(vs.filter((v) => v.expect === "accept"));
  assert.deepEqual(ok, { "reformat-scale": "$1.577 billion", "reformat-full": "$1,577,000,000", "reformat-plain": "1577000000" });
  // A small figure keeps enough decimals for ±1 % to show.
  assert.equal(byOp(stringVariants("3.2%"))["plus-1-percent"], "3.23%");
  assert.deepEqual(stringVariants("no figure here"), []);
  assert.deepEqual(
    stringVariants("2024-03-01").map((v) => v.answer),
    ["2023-03-01", "2024-03-02"],
  );
});

test("answer perturbations reach into lists and skip judge-graded fields", () => {
  const gold = { answer: "Revenue grew", amounts: ["$52,000", "$500,000"], text: "$10" };
  const vs = answerVariants(
    gold,
    [
      { path: "amounts", judge: false },
      { path: "text", judge: true },
      { path: "answer", judge: false },
    ],
    [],
  );
  assert.ok(vs.length > 0);
  assert.ok(vs.every((v) => v.field.startsWith("amounts[0]")));
  const sign = vs.find((v) => v.operator === "sign");
  assert.deepEqual(sign?.answer, { ...gold, amounts: ["-$52,000", "$500,000"] });
  assert.deepEqual(vs.find((v) => v.operator === "empty")?.answer, { ...gold, amounts: ["$500,000"] });
  // A number answer stays a number.
  assert.equal(answerVariants(-1577, [{ path: "", judge: false }]).find((v) => v.operator === "sign")?.answer, 1577);
});

test("scene perturbations: moves along the checked axis, removal, a turn; a turn that changes nothing is equivalent", () => {
  const calls = [
    { name: "add_object", arguments: { name: "table", kind: "box", position: [0, 0, 0.375], dimensions: [1.6, 0.9, 0.75] } },
    { name: "add_object", arguments: { name: "plate", kind: "cylinder", position: [0, 0, 0.76], dimensions: [0.25, 0.25, 0.02] } },
    { name: "update_object", arguments: { name: "plate", color: "white" } },
  ];
  const checks = [
    { check: "position", object: "table", at: [null, null, 0.375], tolerance: 0.02 },
    { check: "on_top_of", object: "plate", support: "table" },
  ];
  const vs = sceneVariants(calls, checks);
  const move = vs.find((v) => v.operator === "move-2x-tolerance" && v.object === "table");
  assert.deepEqual(move?.calls[0]?.arguments.position, [0, 0, 0.415]);
  const remove = vs.find((v) => v.operator === "remove" && v.object === "plate");
  assert.deepEqual(
    remove?.calls.map((c) => c.arguments.name),
    ["table"],
  );
  assert.deepEqual(vs.find((v) => v.operator === "rotate-90" && v.object === "table")?.calls[0]?.arguments.rotation, [0, 0, 90]);
  // A cylinder turned about z is the same cylinder: tipped over instead.
  assert.deepEqual(vs.find((v) => v.operator === "rotate-90" && v.object === "plate")?.calls[1]?.arguments.rotation, [90, 0, 0]);
  const cube = sceneVariants(
    [{ name: "add_object", arguments: { name: "c", kind: "box", position: [0, 0, 0.5], dimensions: [1, 1, 1] } }],
    [{ check: "exists", objects: ["c"] }],
  );
  assert.equal(cube.find((v) => v.operator === "rotate-90")?.equivalent, true);
});

const outcome = (reward: number | null, components: Array<{ name: string; score: number }> = []): AuditOutcome => ({
  id: "t",
  reward,
  status: reward === null ? "error" : "completed",
  infra: reward === null,
  file: "f",
  components,
});

test("flakiness: identical judged rewards are stable, infra errors are counted apart; parity names the first differing component", () => {
  assert.equal(flakinessOf("process", [outcome(1), outcome(null), outcome(1)]).flaky, false);
  assert.equal(flakinessOf("process", [outcome(1), outcome(null), outcome(1)]).not_judged, 1);
  assert.deepEqual(flakinessOf("docker", [outcome(1), outcome(0.5)]).rewards, [1, 0.5]);
  assert.equal(flakinessOf("docker", [outcome(1), outcome(0.5)]).flaky, true);
  const a = {
    backend: "docker" as const,
    runs: [
      outcome(1, [
        { name: "tests", score: 1 },
        { name: "lint", score: 1 },
      ]),
    ],
  };
  const b = {
    backend: "process" as const,
    runs: [
      outcome(0.5, [
        { name: "tests", score: 1 },
        { name: "lint", score: 0 },
      ]),
    ],
  };
  assert.deepEqual(parityOf(a, b), { backends: ["docker", "process"], agree: false, first_difference: { component: "lint", a: 1, b: 0 } });
  assert.equal(parityOf(a, { backend: "process", runs: [outcome(null)] }).agree, null);
});

test("probe files: the shipped library loads; a broken probe file is named with its field", () => {
  const { probes, problems } = loadProbes([builtinProbesDir()]);
  assert.deepEqual(problems, []);
  assert.ok(probes.length >= 14);
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-probes-"));
  try {
    writeFileSync(path.join(dir, "bad.yaml"), "name: Bad Name\ndescription: x\ndomains: [code]\n");
    const r = loadProbes([dir]);
    assert.equal(r.probes.length, 0);
    assert.match(r.problems[0] ?? "", /bad\.yaml: name:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the files a probe rewrites: the solution's Python, never the tests", () => {
  assert.deepEqual(patchedFiles("--- a/pkg/a.py\n+++ b/pkg/a.py\n@@\n--- /dev/null\n+++ b/pkg/new.py\n"), ["pkg/a.py", "pkg/new.py"]);
  const task = {
    id: "t",
    prompt: "p",
    source: { file: "x", line: 1, index: 0 },
    files: { "solution.py": "", "tests/test_x.py": "", "conftest.py": "", "data.txt": "" },
    visible_tests: { "test_examples.py": "" },
    solution: { patch: "+++ b/pkg/core.py\n" },
  };
  assert.deepEqual(editablePythonFiles(task), ["pkg/core.py", "solution.py"]);
});

test("huge-output probe: floods twice the sandbox's output limit (past truncation), not a fixed 20 MB", () => {
  const loaded = loadEnvironment(path.join(import.meta.dirname, "..", "..", "environments", "code-stdio")).env;
  assert.ok(loaded);
  const task = loaded.tasks[0];
  assert.ok(task);
  const limit = loaded.manifest.sandbox.limits.output;
  const vars = probeVars(loaded, task);
  const bytes = Number(vars.flood_repeats) * 72;
  assert.ok(bytes >= 2 * limit && bytes < 2 * limit + 72, `${bytes} bytes for an output limit of ${limit}`);
  const probe = loadProbes([builtinProbesDir()]).probes.find((p) => p.name === "huge-output");
  assert.ok(probe);
  const p = probePolicy(probe, loaded, task, vars, ["bash", "submit"]);
  assert.ok("policy" in p);
});

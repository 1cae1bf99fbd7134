/**
 * `rlenv audit` against verifiers with planted holes: each must be flagged, with the
 * evidence (the rewards seen, the surviving mutant's diff, the probe's trajectory). Real
 * sandboxes: the process backend always, docker as well where its image is here.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { builtinProbesDir, loadProbes } from "../../src/core/audit/probes";
import { type AuditOptions, auditEnvironment } from "../../src/core/audit/run-audit";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { hashEnvironment } from "../../src/core/util/hash";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const cleanups: Array<() => void | Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

function env(files: Record<string, string>) {
  const { dir, cleanup } = makeEnvDir(files);
  cleanups.push(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  return env;
}

const providers = new Map<string, SandboxProvider>();
async function provider(backend: "process" | "docker"): Promise<SandboxProvider> {
  let p = providers.get(backend);
  if (!p) {
    p = await createSandboxProvider({ backend });
    providers.set(backend, p);
    const made = p;
    cleanups.push(() => made.shutdown());
  }
  return p;
}

async function audit(e: ReturnType<typeof env>, backends: Array<"process" | "docker"> = ["process"], over: Partial<AuditOptions> = {}) {
  const runsDir = mkdtempSync(path.join(os.tmpdir(), "rlenv-audit-test-"));
  cleanups.push(() => rmSync(runsDir, { recursive: true, force: true }));
  const { probes, problems } = loadProbes([builtinProbesDir()]);
  assert.deepEqual(problems, []);
  const list = [];
  for (const b of backends) list.push({ backend: b, provider: await provider(b) });
  return auditEnvironment(e, { providers: list, runsDir, runs: 3, mutants: 12, seed: 0, concurrency: 4, probes, ...over });
}

/**
 * Every verifier here is a one-line Python check that ends within a second: each gets a 10 s
 * limit, which the sleep-past-timeout probe (it makes the verifier sleep a day) waits out in
 * every audit, instead of the default minute.
 */
const codeManifest = (name: string, reward: string, tools = "[bash, write_file, submit]") =>
  `name: ${name}\ndomain: code\nsandbox:\n  image: ${image}\n  workdir: /workspace\n  timeouts: { step: 20, rollout: 120 }\ntasks: tasks.jsonl\ntools: ${tools}\nmax_turns: 5\nreward:\n${reward.replace(/^ {2}- type: (.*)$/gm, "  - type: $1\n    timeout: 10")}`;

const weakTask = JSON.stringify({
  id: "double",
  prompt: "Write double(x) in solution.py: it returns twice x.",
  files: { "solution.py": "def double(x):\n    raise NotImplementedError\n" },
  // The weak test: it checks only the type of the result.
  tests: { files: { "_hidden.py": "import sys\nfrom solution import double\nassert isinstance(double(3), int)\nprint('ok')\n" } },
  solution: { files: { "solution.py": "def double(x):\n    return 2 * x\n" } },
});
const weakEnv = () =>
  env({
    "environment.yaml": codeManifest("planted-weak", "  - type: tests\n    command: python3 _hidden.py\n    format: exit-code\n"),
    "tasks.jsonl": `${weakTask}\n`,
  });

for (const backend of ["process", "docker"] as const) {
  const skip = backend === "docker" ? missing("docker") || missing("image") : false;
  test(`audit (${backend}): a hidden test that checks only the type of the result lets mutants survive, listed with their diff`, {
    skip,
    timeout: 300_000,
  }, async () => {
    const a = await audit(weakEnv(), [backend]);
    const t = a.tasks[0];
    assert.ok(t?.mutation, JSON.stringify(a));
    assert.equal(t.ok, false);
    assert.equal(t.mutation.kind, "code");
    assert.ok(t.mutation.score !== null && t.mutation.score < 0.8, `score ${t.mutation.score}`);
    assert.ok(t.mutation.survivors.length > 0);
    // Every survivor returns a wrong int: none may be taken for equivalent.
    for (const s of t.mutation.survivors) assert.match(s.diff, /^-\s+return 2 \* x$/m, s.diff);
    assert.ok(t.problems.some((p) => /mutation score/.test(p)));
    // The exit-code verifier without a sentinel also passes code that exits early: the probes find it.
    const early = t.probes.find((p) => p.probe === "exit-early-os-exit");
    assert.equal(early?.status, "finding");
    assert.equal(early?.backend, backend);
    assert.ok(early && existsSync(early.trajectory));
  });
}

test("audit: a verifier with a random score is flaky, with the rewards seen", { timeout: 300_000 }, async () => {
  const task = JSON.stringify({ id: "any", prompt: "Submit.", solution: { files: { "solution.py": "x = 1\n" } } });
  const e = env({
    "environment.yaml": codeManifest(
      "planted-flaky",
      '  - type: script\n    command: python3 -c "import random; print(random.random())"\n',
      "[submit]",
    ),
    "tasks.jsonl": `${task}\n`,
  });
  const a = await audit(e, ["process"], { mutants: 0 });
  const f = a.tasks[0]?.flakiness[0];
  assert.ok(f);
  assert.equal(f.flaky, true);
  assert.equal(f.rewards.length, 3);
  assert.ok(new Set(f.rewards).size > 1, JSON.stringify(f.rewards));
  assert.ok(a.tasks[0]?.problems.some((p) => p.startsWith("flaky on process")));
});

test("audit: a verifier that trusts a report file the agent can write is fooled by the fake-report probe", {
  timeout: 300_000,
}, async () => {
  const check =
    "import solution; ok = solution.add(2, 3) == 5 and solution.add(-1, 1) == 0; ok and open('report.xml', 'w').write('<testsuite><testcase classname=\\\"t\\\" name=\\\"add\\\"/></testsuite>')";
  const task = JSON.stringify({
    id: "add",
    prompt: "Write add(a, b) in solution.py.",
    files: { "solution.py": "def add(a, b):\n    raise NotImplementedError\n" },
    solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
  });
  const e = env({
    "environment.yaml": codeManifest(
      "planted-report",
      `  - type: tests\n    format: junit\n    report: report.xml\n    command: python3 -c "${check}"\n`,
    ),
    "tasks.jsonl": `${task}\n`,
  });
  const a = await audit(e, ["process"], { mutants: 4 });
  const t = a.tasks[0];
  assert.ok(t);
  assert.equal(t.flakiness[0]?.rewards[0], 1, "the oracle passes");
  const fake = t.probes.find((p) => p.probe === "fake-report");
  assert.equal(fake?.status, "finding", JSON.stringify(t.probes));
  assert.ok(fake && readFileSync(fake.trajectory, "utf8").includes("report.xml"));
  assert.ok(t.problems.some((p) => p.includes("probe fake-report")));
});

test("audit: a comparator that ignores the sign accepts the negated answer, and says so", { timeout: 300_000 }, async () => {
  const task = JSON.stringify({
    id: "loss",
    prompt: "What was the net loss, in millions? Submit the figure.",
    solution: { answer: "-1577" },
  });
  const script = "import json, sys; a = json.load(sys.stdin)['answer']; print(1 if abs(float(a)) == 1577 else 0)";
  const e = env({
    "environment.yaml": codeManifest("planted-sign", `  - type: script\n    command: python3 -c "${script}"\n`, "[submit]"),
    "tasks.jsonl": `${task}\n`,
  });
  const a = await audit(e, ["process"]);
  const m = a.tasks[0]?.mutation;
  assert.ok(m);
  assert.equal(m.kind, "answer");
  assert.deepEqual(
    m.survivors.map((s) => s.operator),
    ["sign"],
  );
  assert.match(m.survivors[0]?.diff ?? "", /\+ "1577"/);
  assert.ok(m.killed >= 5, `killed ${m.killed}`);
  assert.equal(a.tasks[0]?.ok, false);
});

test("audit: a scene check with a 10 m tolerance does not notice an object moved by its own size, nor all objects at one point", {
  timeout: 300_000,
}, async () => {
  const task = JSON.stringify({
    id: "crate",
    prompt: "Put a 1 m cube 'crate' on the floor with its centre at x = 2.",
    target: { checks: [{ check: "position", object: "crate", at: [2, 0, 0.5], tolerance: 10 }] },
    solution: {
      tool_calls: [{ name: "add_object", arguments: { name: "crate", kind: "box", position: [2, 0, 0.5], dimensions: [1, 1, 1] } }],
    },
  });
  const e = env({
    "environment.yaml":
      "name: planted-scene\ndomain: scene3d\nscene:\n  backend: builtin\ntasks: tasks.jsonl\ntools: [add_object, update_object, remove_object, query_scene, submit]\nreward:\n  - type: scene\n",
    "tasks.jsonl": `${task}\n`,
  });
  const a = await audit(e, ["process"]);
  const t = a.tasks[0];
  assert.ok(t?.mutation);
  assert.equal(t.mutation.kind, "scene");
  assert.deepEqual(
    t.mutation.survivors.map((s) => s.operator),
    ["move-own-size"],
  );
  assert.equal(t.mutation.equivalent, 1, "a cube turned 90° about z is the same cube");
  assert.equal(t.probes.find((p) => p.probe === "scene-one-point")?.status, "finding");
  assert.equal(t.ok, false);
});

test("rlenv audit CLI: audit.json and audit.md are written, and the exit code is 1 for a planted hole", { timeout: 300_000 }, async () => {
  const e = weakEnv();
  const out = mkdtempSync(path.join(os.tmpdir(), "rlenv-audit-cli-"));
  cleanups.push(() => rmSync(out, { recursive: true, force: true }));
  const r = rlenv(["audit", e.dir, "--sandbox", "process", "--runs", "2", "--mutants", "4", "--out", out], { timeoutMs: 280_000 });
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(readFileSync(path.join(out, "audit.json"), "utf8")) as {
    ok: boolean;
    environments: Array<{ hash?: string; tasks: Array<{ id: string; ok: boolean }> }>;
  };
  assert.equal(report.ok, false);
  // The content hash its runs record too: a run's dashboard matches the audit on it.
  assert.equal(report.environments[0]?.hash, hashEnvironment(e.dir));
  assert.deepEqual(
    report.environments[0]?.tasks.map((t) => [t.id, t.ok]),
    [["double", false]],
  );
  assert.match(readFileSync(path.join(out, "audit.md"), "utf8"), /# Reward audit: FAIL/);
});

test("audit on docker and process: a verifier that scores differently on the two backends fails parity, naming the component", {
  skip: missing("docker") || missing("image"),
  timeout: 300_000,
}, async () => {
  const task = JSON.stringify({ id: "where", prompt: "Submit.", solution: { files: { "solution.py": "x = 1\n" } } });
  // Docker creates /.dockerenv in every container; the process backend has no such file.
  const e = env({
    "environment.yaml": codeManifest(
      "planted-parity",
      `  - type: script\n    name: backend-sensitive\n    command: python3 -c "import os; print(1 if os.path.exists('/.dockerenv') else 0.5)"\n`,
    ),
    "tasks.jsonl": `${task}\n`,
  });
  const a = await audit(e, ["docker", "process"], { runs: 2, mutants: 0 });
  const t = a.tasks[0];
  assert.ok(t?.parity);
  assert.deepEqual(t.parity, {
    backends: ["docker", "process"],
    agree: false,
    first_difference: { component: "backend-sensitive", a: 1, b: 0.5 },
  });
  assert.deepEqual(
    t.flakiness.map((f) => [f.backend, f.flaky]),
    [
      ["docker", false],
      ["process", false],
    ],
  );
  assert.ok(t.problems.some((p) => p.startsWith("backend parity: backend-sensitive scored 1 on docker and 0.5 on process")));
  // Every probe ran on both backends.
  const backends = new Set(t.probes.map((p) => p.backend));
  assert.deepEqual([...backends].sort(), ["docker", "process"]);
});

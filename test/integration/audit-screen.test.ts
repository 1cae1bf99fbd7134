/**
 * The audit's screen (the verifier's commands over many candidates in one sandbox exec, scored
 * by the real verifiers replayed on the recorded runs) must give the verdicts rollouts give:
 * the same environment audited with the screen and with every candidate played as a rollout
 * (screen: false) must agree on every count, survivor and probe status, while the screen
 * really stands in (mutants killed, probes rejected and oracle reruns without rollouts) and
 * every survivor and finding still carries a rollout's trajectory.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { builtinProbesDir, loadProbes } from "../../src/core/audit/probes";
import { auditEnvironment } from "../../src/core/audit/run-audit";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { EnvironmentAudit } from "../../src/core/schema/audit";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { makeEnvDir } from "../support/tmp-env";

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const cleanups: Array<() => void | Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const manifest = (reward: string) =>
  `name: screened\ndomain: code\nsandbox:\n  image: ${image}\n  workdir: /workspace\n  timeouts: { step: 20, rollout: 120 }\ntasks: tasks.jsonl\ntools: [bash, write_file, submit]\nmax_turns: 5\nreward:\n${reward}`;

const tasks = [
  // Weak: only the type of the result is checked, so most mutants survive.
  {
    id: "double",
    prompt: "Write double(x) in solution.py: it returns twice x.",
    files: { "solution.py": "def double(x):\n    raise NotImplementedError\n" },
    tests: {
      files: {
        "_hidden.py": "import sys\nfrom solution import double\nassert isinstance(double(3), int)\nprint(sys.stdin.readline().strip())\n",
      },
    },
    solution: { files: { "solution.py": "def double(x):\n    return 2 * x\n" } },
  },
  // Strong: values checked, so the screen kills the mutants.
  {
    id: "clamp",
    prompt: "Write clamp(x, lo, hi) in solution.py.",
    files: { "solution.py": "def clamp(x, lo, hi):\n    raise NotImplementedError\n" },
    tests: {
      files: {
        "_hidden.py":
          "import sys\nfrom solution import clamp\nfor x, want in [(-5, 0), (0, 0), (3, 3), (10, 10), (11, 10), (99, 10)]:\n    assert clamp(x, 0, 10) == want, (x, want)\nprint(sys.stdin.readline().strip())\n",
      },
    },
    solution: {
      files: {
        "solution.py": "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
      },
    },
  },
];

function summary(a: EnvironmentAudit) {
  return a.tasks.map((t) => ({
    id: t.id,
    ok: t.ok,
    flakiness: t.flakiness.map((f) => ({ backend: f.backend, rewards: f.rewards, flaky: f.flaky })),
    mutation: t.mutation && {
      mutants: t.mutation.mutants,
      killed: t.mutation.killed,
      survived: t.mutation.survived,
      equivalent: t.mutation.equivalent,
      not_judged: t.mutation.not_judged,
      survivors: t.mutation.survivors.map((s) => s.diff).sort(),
    },
    probes: t.probes.map((p) => `${p.probe}:${p.status}`).sort(),
  }));
}

test("audit (process): the screen's verdicts are the rollouts' verdicts, and it stands in for most rollouts", {
  timeout: 600_000,
}, async () => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": manifest(
      "  - type: tests\n    command: python3 _hidden.py\n    format: exit-code\n    sentinel: true\n    timeout: 10\n",
    ),
    "tasks.jsonl": `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`,
  });
  cleanups.push(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const provider = await createSandboxProvider({ backend: "process" });
  cleanups.push(() => provider.shutdown());
  // Workbenches (the audit's own sandboxes, not rollouts) opened per task.
  const workbenches = new Map<string, number>();
  const acquire = provider.acquire.bind(provider);
  provider.acquire = (req) => {
    const task = req.labels?.["rlenv.audit"];
    if (task) workbenches.set(task, (workbenches.get(task) ?? 0) + 1);
    return acquire(req);
  };
  const { probes } = loadProbes([builtinProbesDir()]);
  const run = async (screen: boolean) => {
    const runsDir = mkdtempSync(path.join(os.tmpdir(), "rlenv-audit-screen-"));
    cleanups.push(() => rmSync(runsDir, { recursive: true, force: true }));
    return auditEnvironment(env, {
      providers: [{ backend: "process", provider }],
      runsDir,
      runs: 3,
      mutants: 10,
      seed: 0,
      concurrency: 4,
      probes: probes.filter((p) => p.name !== "sleep-past-timeout"),
      screen,
    });
  };
  const screened = await run(true);
  // One sandbox per task served its mutants, its oracle reruns, its probes and the outputs for the equivalence check.
  assert.deepEqual([...workbenches.entries()].sort(), [
    ["clamp", 1],
    ["double", 1],
  ]);
  const played = await run(false);
  assert.deepEqual(summary(screened), summary(played));

  const [weak, strong] = screened.tasks;
  assert.ok(weak?.mutation && strong?.mutation);
  assert.equal(weak.ok, false, "the type-only check lets mutants through");
  assert.ok(weak.mutation.survived > 0);
  assert.equal(strong.mutation.survived, 0, JSON.stringify(strong.mutation.survivors));
  // Its test imports the solution in-process, where it can read the sentinel: probes find that, each finding a rollout.
  const finding = strong.probes.find((p) => p.probe === "print-sentinel");
  assert.equal(finding?.status, "finding");
  assert.equal(finding.screened, undefined);
  // The screen stood in: mutants killed, probes rejected and the oracle rerun without rollouts of their own.
  assert.ok((strong.mutation.screened_killed ?? 0) > 0, JSON.stringify(strong.mutation));
  assert.equal(strong.mutation.screened_killed, strong.mutation.killed);
  assert.ok(strong.probes.some((p) => p.screened && p.status === "rejected" && p.trajectory === ""));
  assert.deepEqual(
    screened.tasks.map((t) => t.flakiness[0]?.reruns),
    [2, 2],
  );
  assert.deepEqual(
    played.tasks.map((t) => [t.flakiness[0]?.reruns, t.flakiness[0]?.trajectories.length]),
    [
      [undefined, 3],
      [undefined, 3],
    ],
  );
  // Every survivor and every finding is a rollout's, with its trajectory.
  for (const t of screened.tasks) {
    for (const s of t.mutation?.survivors ?? []) assert.ok(existsSync(s.trajectory), s.trajectory);
    for (const p of t.probes.filter((x) => x.status !== "rejected")) assert.ok(existsSync(p.trajectory), JSON.stringify(p));
    for (const p of t.probes.filter((x) => !x.screened)) assert.ok(existsSync(p.trajectory), JSON.stringify(p));
  }
});

/**
 * The screen's budget: a candidate still running long after the gold's time for the same step
 * (a mutant that loops forever) is stopped in the screen and left unjudged (null), so the audit
 * plays it as a rollout under the verifier's real timeout instead of holding every later
 * candidate of the task for that whole timeout. The audit's verdict on it is the rollout's.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { MutationWorkbench } from "../../src/core/audit/mutate-code";
import { auditEnvironment } from "../../src/core/audit/run-audit";
import { candidateFiles, screenPlan } from "../../src/core/audit/screen";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { makeEnvDir } from "../support/tmp-env";

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const cleanups: Array<() => void | Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const countdown = {
  id: "countdown",
  prompt: "Write countdown(n) in solution.py: how many times n can be decremented before it reaches 0.",
  files: { "solution.py": "def countdown(n):\n    raise NotImplementedError\n" },
  tests: {
    files: {
      "_hidden.py":
        "import sys\nfrom solution import countdown\nfor n in [0, 1, 5, 17]:\n    assert countdown(n) == n, n\nprint(sys.stdin.readline().strip())\n",
    },
  },
  solution: {
    files: { "solution.py": "def countdown(n):\n    steps = 0\n    while n > 0:\n        n -= 1\n        steps += 1\n    return steps\n" },
  },
};

/**
 * The verifier's limit is 20 s: the screen's budget (SCREEN_BUDGET, 10x the gold's time, at least
 * 1 s) must stay under it for the screen to stop a loop, and on a loaded machine the gold's step
 * alone took over a second (a clean-clone CI run with the browser suite beside: the budget reached
 * a 10 s limit and the loop ended as a plain timeout).
 */
function loadCountdown() {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": `name: budget\ndomain: code\nsandbox:\n  image: ${image}\n  workdir: /workspace\n  timeouts: { step: 20, rollout: 120 }\ntasks: tasks.jsonl\ntools: [bash, write_file, submit]\nmax_turns: 5\nreward:\n  - type: tests\n    command: python3 _hidden.py\n    format: exit-code\n    sentinel: true\n    timeout: 20\n`,
    "tasks.jsonl": `${JSON.stringify(countdown)}\n`,
  });
  cleanups.push(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const task = env.tasks[0];
  assert.ok(task);
  return { env, task };
}

test("screen: a candidate still running after the budget is left to a rollout; the others are recorded", { timeout: 120_000 }, async () => {
  const { env, task } = loadCountdown();
  const provider = await createSandboxProvider({ backend: "process" });
  cleanups.push(() => provider.shutdown());
  const plan = await screenPlan(env, task);
  assert.ok(!("unscreenable" in plan), JSON.stringify(plan));
  const bench = await MutationWorkbench.open(provider, env, task);
  try {
    const gold = candidateFiles(bench.goldSolution());
    const runs = await bench.screen(plan, [
      { files: gold },
      { files: { "solution.py": "def countdown(n):\n    while True:\n        pass\n" } },
      { files: { "solution.py": "def countdown(n):\n    return 0\n" } },
    ]);
    assert.ok(!("failed" in runs), JSON.stringify(runs));
    const [goldRuns, looping, wrong] = runs;
    assert.equal(goldRuns?.[0]?.status, "ok");
    assert.equal(goldRuns?.[0]?.exitCode, 0);
    assert.equal(looping, null, "the endless loop is not judged by the screen (no timeout record of its own)");
    assert.equal(wrong?.[0]?.status, "ok");
    assert.notEqual(wrong?.[0]?.exitCode, 0);
  } finally {
    await bench.close();
  }
});

test("audit: a mutant that loops forever is killed by a rollout's timeout, with the same verdicts as without the screen", {
  timeout: 600_000,
}, async () => {
  const { env } = loadCountdown();
  const provider = await createSandboxProvider({ backend: "process" });
  cleanups.push(() => provider.shutdown());
  const run = async (screen: boolean) => {
    const runsDir = mkdtempSync(path.join(os.tmpdir(), "rlenv-audit-budget-"));
    cleanups.push(() => rmSync(runsDir, { recursive: true, force: true }));
    return auditEnvironment(env, {
      providers: [{ backend: "process", provider }],
      runsDir,
      runs: 2,
      mutants: 20,
      seed: 0,
      concurrency: 4,
      probes: [],
      screen,
    });
  };
  const screened = await run(true);
  const m = screened.tasks[0]?.mutation;
  assert.ok(m, JSON.stringify(screened.tasks[0]));
  const loops = screened.tasks[0]?.mutation?.survivors ?? [];
  assert.equal(loops.length, 0, JSON.stringify(loops));
  // Some mutant (n += 1, steps -= 1 under n > 0 ...) never ends: the screen let it through to a rollout, which killed it.
  assert.ok(m.killed > (m.screened_killed ?? 0), JSON.stringify(m));
  const played = await run(false);
  const counts = (a: typeof screened) =>
    a.tasks.map((t) => [
      t.ok,
      t.mutation?.mutants,
      t.mutation?.killed,
      t.mutation?.survived,
      t.mutation?.equivalent,
      t.mutation?.not_judged,
    ]);
  assert.deepEqual(counts(screened), counts(played));
  for (const t of screened.tasks) for (const s of t.mutation?.survivors ?? []) assert.ok(existsSync(s.trajectory), s.trajectory);
});

/** The screen's requests and replies as they went through a provider's sandboxes (rlenv_screen.py's JSON on stdin and stdout). */
type ScreenExec = { candidates: Array<{ files?: Record<string, string> }>; replies: Array<{ over_budget?: boolean }> };
function watchScreens(inner: SandboxProvider): { provider: SandboxProvider; screens: ScreenExec[] } {
  const screens: ScreenExec[] = [];
  const provider: SandboxProvider = {
    backend: inner.backend,
    shutdown: () => inner.shutdown(),
    acquire: async (req) => {
      const sb = await inner.acquire(req);
      return new Proxy(sb, {
        get(target, key, receiver) {
          if (key !== "exec") return Reflect.get(target, key, receiver);
          const exec: Sandbox["exec"] = async (command, opts) => {
            const r = await target.exec(command, opts);
            if (Array.isArray(command) && command[0] === "python3" && command[2] === "-c" && typeof opts?.stdin === "string") {
              const req = JSON.parse(opts.stdin) as { candidates: ScreenExec["candidates"] };
              const replies = (JSON.parse(r.stdout) as { candidates: ScreenExec["replies"] }).candidates;
              screens.push({ candidates: req.candidates, replies });
            }
            return r;
          };
          return exec;
        },
      });
    },
  };
  return { provider, screens };
}

test("audit: a mutant the screen stopped over its budget is not traced for the equivalence check (its rollout decides first)", {
  timeout: 600_000,
}, async () => {
  const { env } = loadCountdown();
  const inner = await createSandboxProvider({ backend: "process" });
  cleanups.push(() => inner.shutdown());
  const { provider, screens } = watchScreens(inner);
  const runsDir = mkdtempSync(path.join(os.tmpdir(), "rlenv-audit-budget-"));
  cleanups.push(() => rmSync(runsDir, { recursive: true, force: true }));
  const audit = await auditEnvironment(env, {
    providers: [{ backend: "process", provider }],
    runsDir,
    runs: 1,
    mutants: 20,
    seed: 0,
    concurrency: 4,
    probes: [],
  });
  assert.equal(audit.tasks[0]?.ok, true, JSON.stringify(audit.tasks[0]));
  const traced = (c: ScreenExec["candidates"][number]) => Object.keys(c.files ?? {}).some((f) => f.endsWith("sitecustomize.py"));
  const stopped = screens
    .filter((s) => !s.candidates.some(traced))
    .flatMap((s) => s.candidates.filter((_, k) => s.replies[k]?.over_budget).map((c) => c.files?.["solution.py"]));
  assert.ok(stopped.length > 0, "some mutant of countdown loops and the screen stopped it");
  const tracedSources = screens.flatMap((s) => s.candidates.filter(traced).map((c) => c.files?.["solution.py"]));
  for (const source of stopped) assert.ok(!tracedSources.includes(source), `traced though the screen stopped it:\n${source}`);
});

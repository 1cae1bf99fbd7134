import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { Environment } from "../../src/core/model/environment";
import type { LoadedTask } from "../../src/core/model/environment";
import { OraclePolicy } from "../../src/core/policy/oracle";
import type { Policy } from "../../src/core/policy/types";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { backendSkip, loadExample, observations, rewardEvent, scripted } from "./code-rollouts";

/**
 * The "Done when" cases: agent code that loops forever, forks without end,
 * allocates 4 GiB or writes outside the workdir. Each must end as a recorded failure
 * with its reason, in the observation where the agent ran it and in the reward record,
 * and the run must go on: a correct solution later in the same run still scores 1.
 */

/** The HumanEval environment with a short hidden-test limit, so a runaway costs seconds. */
function humaneval(verifierTimeoutS: number): Environment {
  const env = loadExample("code-humaneval");
  const reward = env.manifest.reward.map((r) => ({ ...r, timeout: verifierTimeoutS }));
  return { ...env, manifest: { ...env.manifest, reward, sandbox: { ...env.manifest.sandbox, timeouts: { step: 10, rollout: 120 } } } };
}

/** The task's signature and docstring with this body: the agent's submission. */
const withBody = (task: LoadedTask, body: string) => `${task.files?.["solution.py"] ?? ""}${body}`;

interface Case {
  task: string;
  policy: (task: LoadedTask) => Policy;
  /** What the agent's own command shows when it runs the bad code. */
  observation: (o: ReturnType<typeof observations>[number]) => void;
  reason: RegExp;
}

function cases(hostDir: string): Record<string, Case> {
  return {
    "infinite loop": {
      task: "humaneval-000",
      policy: (t) =>
        scripted([
          { name: "write_file", arguments: { path: "solution.py", content: withBody(t, "    while True:\n        pass\n") } },
          { name: "bash", arguments: { command: "python3 -c 'from solution import *; has_close_elements([1.0], 0.5)'", timeout: 2 } },
        ]),
      observation: (o) => {
        assert.equal(o.status, "timeout");
        assert.match(String(o.output), /\[timeout: .+\]/);
      },
      reason: /^the hidden tests were stopped: .*time/i,
    },
    "fork bomb": {
      task: "humaneval-002",
      policy: (t) =>
        scripted([
          {
            name: "write_file",
            arguments: { path: "solution.py", content: withBody(t, "    import os\n    while True:\n        os.fork()\n") },
          },
          { name: "bash", arguments: { command: ":(){ :|:& };:; sleep 30", timeout: 3 } },
        ]),
      observation: (o) => assert.ok(o.status !== "ok" || o.exit_code !== 0, `the fork bomb was contained: ${JSON.stringify(o.output)}`),
      reason: /stopped|BlockingIOError|Resource temporarily unavailable/i,
    },
    "4 GiB allocation": {
      task: "humaneval-004",
      policy: (t) =>
        scripted([
          {
            name: "write_file",
            arguments: { path: "solution.py", content: withBody(t, "    hog = b'x' * (4 * 1024 ** 3)\n    return len(hog)\n") },
          },
          { name: "bash", arguments: { command: "python3 -c \"b = b'x' * (4 * 1024 ** 3); print(len(b))\"" } },
        ]),
      observation: (o) => {
        assert.ok(
          o.status === "oom" || (o.exit_code !== 0 && /MemoryError/.test(String(o.output))),
          `the allocation failed: ${o.status} ${JSON.stringify(o.output)}`,
        );
        assert.doesNotMatch(String(o.output), /^4294967296$/m);
      },
      reason: /memory|MemoryError|oom/i,
    },
    "write outside the workdir": {
      task: "humaneval-007",
      policy: (t) =>
        scripted([
          {
            name: "write_file",
            arguments: {
              path: "solution.py",
              content: withBody(
                t,
                `    with open('/usr/rlenv-escape.txt', 'w') as f:\n        f.write('escaped')\n    with open('${hostDir}/escape.txt', 'w') as f:\n        f.write('escaped')\n    return []\n`,
              ),
            },
          },
          { name: "bash", arguments: { command: `echo escaped > /usr/rlenv-escape.txt; echo escaped > ${hostDir}/escape.txt` } },
        ]),
      observation: (o) => {
        assert.notEqual(o.exit_code, 0);
        assert.match(String(o.output), /Read-only file system|Permission denied|No such file or directory/);
      },
      reason: /(OSError|PermissionError|FileNotFoundError).*(Read-only file system|Permission denied|No such file or directory)/,
    },
  };
}

for (const backend of ["process", "docker"] as const) {
  describe(`runaway agent code on the ${backend} backend`, async () => {
    const skip = await backendSkip(backend);
    test("each ends as a recorded failure with its reason, and the run goes on", { skip, timeout: 300_000 }, async () => {
      const hostDir = mkdtempSync(path.join(tmpdir(), "rlenv-escape-target-"));
      const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-runaway-runs-"));
      const provider = await createSandboxProvider({ backend });
      try {
        const env = humaneval(10);
        const bad = cases(hostDir);
        const byTask = new Map(Object.entries(bad).map(([name, c]) => [c.task, { name, ...c }]));
        const good = "humaneval-010";
        const { rollouts } = await runEnvironment({
          env,
          config: { policy: { kind: "oracle" }, tasks: [...byTask.keys(), good], concurrency: 2, sandbox: backend },
          runsDir,
          sandboxProvider: provider,
          policyFactory: ({ task }) => byTask.get(task.id)?.policy(task) ?? new OraclePolicy(task.solution),
        });
        assert.equal(rollouts.length, byTask.size + 1);
        for (const r of rollouts) {
          const events = readFileSync(r.file, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as TrajectoryEvent);
          if (r.task === good) {
            assert.equal(r.reward, 1, `the correct solution after the runaways still scores 1 (${r.reason})`);
            continue;
          }
          const c = byTask.get(r.task)!;
          assert.equal(r.status, "completed", `${c.name}: the rollout completed (${r.reason})`);
          assert.equal(r.reward, 0, `${c.name}: scored 0`);
          const bash = observations(events).find((o) => o.name === "bash");
          assert.ok(bash, `${c.name}: the agent's command was recorded`);
          c.observation(bash);
          const component = rewardEvent(events)?.components[0];
          assert.ok(component, `${c.name}: a reward record`);
          assert.equal(component.passed, false);
          assert.equal(component.error, undefined, `${c.name}: a failure of the submission, not a verifier error: ${component.error}`);
          assert.match(component.reason ?? "", c.reason, `${c.name}: the reason says what happened`);
        }
        assert.equal(existsSync("/usr/rlenv-escape.txt"), false, "nothing was written to the host's /usr");
        assert.equal(existsSync(path.join(hostDir, "escape.txt")), false, "nothing was written to the host folder");
      } finally {
        await provider.shutdown();
        rmSync(hostDir, { recursive: true, force: true });
        rmSync(runsDir, { recursive: true, force: true });
      }
    });
  });
}

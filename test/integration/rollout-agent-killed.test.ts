import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { ISOLATION_MODES, isolationUnavailable } from "../../src/core/sandbox/process/isolation";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { events, FIXTURE, ofType, tmp } from "./rollout-helpers";

/**
 * The agent and the commands it runs share the sandbox's user, so a command could signal the
 * agent. Had it died, the rollout would have been an infra error (retried, kept out of the
 * scores): any rollout a policy is failing could be taken out of the scores by killing the
 * agent, from its own turn or from the code the tests import. The agent is the docker
 * sandbox's PID 1, and the process sandbox's too (bwrap --as-pid-1, or unshare's shell exec'd
 * into it), which the kernel shields from the signals of its own namespace: the kill fails and
 * the rollout is scored as any other. A container killed from outside is still an
 * infra error (rollout-sandbox-lost.test.ts).
 */
const skip = missing("docker") || missing("image");

/** Kills the sandbox's agent (found by its command line) with SIGKILL, as a submission could. */
const KILL_AGENT = [
  "import os",
  "for p in os.listdir('/proc'):",
  "    try:",
  "        if p.isdigit() and int(p) != os.getpid() and b'in-sandbox agent' in open('/proc/%s/cmdline' % p, 'rb').read():",
  "            os.kill(int(p), 9)",
  "    except OSError:",
  "        pass",
  "",
].join("\n");

function agentKillingEnv() {
  const dir = tmp("rlenv-agent-killed-");
  const manifest = readFileSync(path.join(FIXTURE, "environment.yaml"), "utf8").replace(
    "  - name: slow\n",
    '  - name: run\n    description: Run a Python file of the workdir.\n    parameters: { type: object, properties: { path: { type: string } }, required: [path] }\n    command: python3 -c \'import json,subprocess,sys; subprocess.run(["python3", json.load(sys.stdin)["path"]])\'\n  - name: slow\n',
  );
  writeFileSync(path.join(dir, "environment.yaml"), manifest);
  const task = (id: string, check: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) => ({
    id,
    prompt: "Make greet.txt say 'hello world', then submit 42.",
    files: { "greet.txt": "hello\n" },
    tests: { files: { "tests_hidden/check.py": check } },
    target: "42",
    solution: { tool_calls: calls, answer: "42" },
  });
  const pass = "import sys\nsys.exit(0 if open('greet.txt').read().strip() == 'hello world' else 1)\n";
  const put = { name: "put", arguments: { path: "greet.txt", text: "hello world\n" } };
  const tasks = [
    // The agent's own command kills the agent mid-turn.
    task("in-turn", pass, [
      { name: "put", arguments: { path: "kill.py", text: KILL_AGENT } },
      { name: "run", arguments: { path: "kill.py" } },
      put,
    ]),
    // The code under test kills it while the hidden tests run.
    task("under-tests", `${KILL_AGENT}import sys\nsys.exit(1)\n`, [put]),
  ];
  writeFileSync(path.join(dir, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  const { env, problems } = loadEnvironment(dir);
  if (!env) throw new Error(JSON.stringify(problems));
  return env;
}

const providers: SandboxProvider[] = [];
after(async () => {
  for (const p of providers) await p.shutdown();
});

/** Every backend (and process isolation) this machine has: the agent is its namespace's init in each. */
const backends: Array<{ name: string; skip: string | false; make: () => Promise<SandboxProvider>; sandbox: "docker" | "process" }> = [
  { name: "docker", skip, make: () => createSandboxProvider({ backend: "docker" }), sandbox: "docker" },
  ...ISOLATION_MODES.map((mode) => {
    const why = isolationUnavailable(mode);
    return {
      name: `process (${mode})`,
      skip: why ? `${mode} does not work here: ${why}` : (false as const),
      make: async () => new ProcessSandboxProvider({ mode, baseDir: tmp("rlenv-agent-killed-sb-") }),
      sandbox: "process" as const,
    };
  }),
];

for (const b of backends) {
  test(`${b.name}: a command run in the sandbox cannot kill its agent: the rollout goes on and is scored, never an infra error`, {
    skip: b.skip,
  }, async () => {
    const provider = await b.make();
    providers.push(provider);
    const r = await runEnvironment({
      env: agentKillingEnv(),
      config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: b.sandbox },
      runsDir: tmp("rlenv-agent-killed-runs-"),
      sandboxProvider: provider,
      maxInfraAttempts: 3,
      infraBackoff: { baseMs: 10, maxMs: 10 },
    });
    const byTask = new Map(r.rollouts.map((x) => [x.task, x]));
    for (const ro of r.rollouts) {
      assert.deepEqual([ro.status, ro.infra, ro.attempts], ["completed", false, 1], `${ro.task}: ${ro.reason}`);
      assert.deepEqual(ofType(events(ro.file), "error"), []);
    }
    // The kill in the agent's turn failed; the solution went on and passed.
    assert.equal(byTask.get("in-turn")?.reward, 1);
    // The code under test tried to kill the agent and then failed its check: scored, the answer's half only.
    assert.equal(byTask.get("under-tests")?.reward, 0.5);
    assert.equal(r.summary.infra_errors ?? 0, 0);
  });
}

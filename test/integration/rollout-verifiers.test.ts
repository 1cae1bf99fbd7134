import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { VerifyContext } from "../../src/core/model/domain";
import type { LoadedTask } from "../../src/core/model/environment";
import { runVerifier } from "../../src/core/reward/score";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { VerifierConfig } from "../../src/core/schema/verifier";
import { fixtureEnv, processProvider } from "./rollout-helpers";

/** The built-in verifiers that run commands, against a real process sandbox. */
let provider: SandboxProvider | undefined;
let skip: string | false = false;
const open: Sandbox[] = [];
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else provider = p.provider;
});
after(async () => {
  for (const s of open) await s.close();
  await provider?.shutdown();
});

async function verify(raw: unknown, seed: Record<string, string>, taskExtra: Partial<LoadedTask> = {}) {
  const env = fixtureEnv();
  const sb = await provider!.acquire(sandboxRequest(env));
  open.push(sb);
  await sb.reset(seed);
  const task: LoadedTask = { id: "t", prompt: "p", source: { file: "x", line: 1, index: 0 }, ...taskExtra };
  const ctx: Omit<VerifyContext, "timeoutMs"> = {
    env,
    task,
    answer: null,
    events: [],
    state: new Map(),
    signal: new AbortController().signal,
    sandbox: async () => sb,
  };
  return { r: await runVerifier(VerifierConfig.parse(raw), ctx), sb };
}

const tap = `#!/bin/sh
echo "TAP version 13"
echo "ok 1 - adds"
if [ "$(cat answer.txt)" = "4" ]; then echo "ok 2 - answer"; else echo "not ok 2 - answer"; fi
echo "1..3"
`;

test("tests/tap: passed over planned; hidden files appear only at verification", async (t) => {
  if (skip) return t.skip(skip);
  const { r, sb } = await verify(
    { type: "tests", format: "tap", command: "sh hidden/run.sh" },
    { "answer.txt": "4" },
    { tests: { files: { "hidden/run.sh": tap } } },
  );
  assert.equal(r.score, 2 / 3, r.error);
  assert.equal(r.reason, "2/3 tests passed");
  assert.equal((await sb.readFiles(["hidden/run.sh"]))["hidden/run.sh"]?.toString(), tap);
});

test("tests/junit: the report file is read; mode all is all-or-nothing", async (t) => {
  if (skip) return t.skip(skip);
  const xml = `<testsuite><testcase name="a"/><testcase name="b"><failure/></testcase></testsuite>`;
  const cmd = `printf '%s' '${xml}' > report.xml; exit 1`;
  const frac = await verify({ type: "tests", format: "junit", command: cmd, report: "report.xml" }, {});
  assert.equal(frac.r.score, 0.5, frac.r.error);
  const all = await verify({ type: "tests", format: "junit", command: cmd, report: "report.xml", mode: "all" }, {});
  assert.equal(all.r.score, 0);
  const missing = await verify({ type: "tests", format: "junit", command: "true", report: "nothing.xml" }, {});
  assert.match(missing.r.error ?? "", /was not written/);
});

test("tests/pytest: summary line from real pytest output", async (t) => {
  if (skip) return t.skip(skip);
  const probe = await verify({ type: "tests", format: "exit-code", command: "python3 -m pytest --version" }, {});
  if (probe.r.score !== 1) return t.skip("pytest is not installed for the sandbox's python3");
  const { r } = await verify(
    { type: "tests", format: "pytest", command: "python3 -m pytest -q -p no:cacheprovider tests_hidden" },
    { "sol.py": "def f(x):\n    return x + 1\n" },
    {
      tests: {
        files: {
          "tests_hidden/test_f.py": "from sol import f\n\ndef test_a():\n    assert f(1) == 2\n\ndef test_b():\n    assert f(2) == 4\n",
        },
      },
    },
  );
  assert.equal(r.score, 0.5, r.error);
});

test("tests/stdio: each case's stdout compared; a case past its timeout fails", async (t) => {
  if (skip) return t.skip(skip);
  const prog = "import sys,time\nn=int(sys.stdin.read())\nif n<0: time.sleep(10)\nprint(n*2)\n";
  const { r } = await verify(
    { type: "tests", format: "stdio", program: "python3 prog.py" },
    { "prog.py": prog },
    {
      tests: {
        cases: [
          { stdin: "2", stdout: "4\n" },
          { stdin: "5", stdout: "10" },
          { stdin: "3", stdout: "7" },
          { stdin: "-1", stdout: "-2", timeout: 0.5 },
        ],
      },
    },
  );
  assert.equal(r.score, 0.5, r.error);
  const cases = (r.details as { cases: Array<{ passed: boolean; status: string }> }).cases;
  assert.deepEqual(
    cases.map((c) => c.passed),
    [true, true, false, false],
  );
  assert.equal(cases[3]?.status, "timeout");
});

test("tests/exit-code and script: scores, a bad script output is an error", async (t) => {
  if (skip) return t.skip(skip);
  assert.equal((await verify({ type: "tests", command: "test -f done" }, { done: "" })).r.score, 1);
  assert.equal((await verify({ type: "tests", command: "test -f done" }, {})).r.score, 0);
  const s = await verify({ type: "script", command: `echo noise; echo '{"score": 0.25, "reason": "1 of 4"}'` }, {});
  assert.deepEqual([s.r.score, s.r.reason], [0.25, "1 of 4"]);
  assert.equal((await verify({ type: "script", command: "echo 0.75" }, {})).r.score, 0.75);
  assert.match((await verify({ type: "script", command: "echo oops" }, {})).r.error ?? "", /last line is not JSON/);
  assert.match((await verify({ type: "script", command: "echo 3" }, {})).r.error ?? "", /number in \[0, 1\]/);
});

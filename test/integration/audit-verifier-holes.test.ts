/**
 * Holes `rlenv audit` found in the built-in verifiers, each closed: a test that fails on the
 * old behaviour. Real process sandbox.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { VerifyContext } from "../../src/core/model/domain";
import type { LoadedTask } from "../../src/core/model/environment";
import { runVerifier } from "../../src/core/reward/score";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import { VerifierConfig } from "../../src/core/schema/verifier";
import { fixtureEnv, processProvider } from "./rollout-helpers";

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
  return runVerifier(VerifierConfig.parse(raw), ctx);
}

test("tests/pytest: a passing summary printed by the code under test, while pytest itself fails, scores 0", async (t) => {
  if (skip) return t.skip(skip);
  const hidden = { tests: { files: { "tests_hidden/test_f.py": "from sol import f\n\ndef test_a():\n    assert f(1) == 2\n" } } };
  // The huge-output probe: the module floods the output with passes at import (pytest's own verdict is cut
  // off with the rest past the output limit), then ends the process during collection.
  const forged = await verify(
    { type: "tests", format: "pytest", command: "python3 -m pytest -q -p no:cacheprovider tests_hidden" },
    { "sol.py": "import sys\nsys.stdout.write('1 passed in 0.01s\\n' * 1500000)\nsys.stdout.flush()\nsys.exit(0)\n" },
    hidden,
  );
  if (forged.error && /No module named pytest/.test(forged.error)) return t.skip("pytest is not installed for the sandbox's python3");
  assert.equal(forged.score, 0, JSON.stringify(forged));
  const honest = await verify(
    { type: "tests", format: "pytest", command: "python3 -m pytest -q -p no:cacheprovider tests_hidden" },
    { "sol.py": "def f(x):\n    return x + 1\n" },
    hidden,
  );
  assert.equal(honest.score, 1, honest.error);
});

test("code domain tests/pytest: the same forged summary scores 0 there too", async (t) => {
  if (skip) return t.skip(skip);
  const { codeTestsVerifier } = await import("../../src/core/domains/code/tests-verifier");
  const env = fixtureEnv();
  const run = async (sol: string) => {
    const sb = await provider!.acquire(sandboxRequest(env));
    open.push(sb);
    await sb.reset({ "sol.py": sol });
    const task: LoadedTask = {
      id: "t",
      prompt: "p",
      source: { file: "x", line: 1, index: 0 },
      tests: { files: { "tests_hidden/test_f.py": "from sol import f\n\ndef test_a():\n    assert f(1) == 2\n" } },
    };
    const config = VerifierConfig.parse({
      type: "tests",
      format: "pytest",
      command: "python3 -m pytest -q -p no:cacheprovider tests_hidden",
    });
    if (config.type !== "tests") throw new Error("unreachable");
    return codeTestsVerifier.verify(config, {
      env,
      task,
      answer: null,
      events: [],
      state: new Map(),
      signal: new AbortController().signal,
      sandbox: async () => sb,
      timeoutMs: 60_000,
    });
  };
  const forged = await run("import sys\nsys.stdout.write('1 passed in 0.01s\\n' * 1500000)\nsys.stdout.flush()\nsys.exit(0)\n");
  assert.equal(forged.score, 0, JSON.stringify({ ...forged, details: undefined }));
  const honest = await run("def f(x):\n    return x + 1\n");
  assert.equal(honest.score, 1, JSON.stringify({ ...honest, details: undefined }));
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { VerifyContext } from "../../src/core/model/domain";
import type { LoadedTask } from "../../src/core/model/environment";
import { testsVerifier } from "../../src/core/reward/verifiers/tests";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { VerifierConfig } from "../../src/core/schema/verifier";
import { backendSkip } from "./code-rollouts";

/**
 * A process the agent left running in the background must not reach the verifier's run:
 * here one waits for the tests' JUnit report and puts a forged one (9 of 10 passed) in its
 * place while the test command is still on its way out. Verification first kills every such
 * process, so the report read is the tests' own (1 of 10). Before, the forged 0.9 was scored.
 */
const REAL = `<testsuite>${'<testcase name="t0"/>'}${Array.from({ length: 9 }, (_, i) => `<testcase name="f${i}"><failure/></testcase>`).join("")}</testsuite>`;
const FORGED = `<testsuite>${Array.from({ length: 9 }, (_, i) => `<testcase name="p${i}"/>`).join("")}<testcase name="f"><failure/></testcase></testsuite>`;

for (const backend of ["process", "docker"] as const) {
  describe(`${backend}: processes the agent left running`, async () => {
    const skip = await backendSkip(backend);
    test("are killed before the tests verifier runs, so they cannot rewrite its report", { skip }, async () => {
      const provider = await createSandboxProvider({ backend });
      try {
        const sb = await provider.acquire({
          image: "rlenv/python:bookworm",
          workdir: "/workspace",
          user: "1000:1000",
          limits: { cpus: 1, memoryBytes: 256 << 20, pids: 64, outputBytes: 1_000_000, tmpfsBytes: 64 << 20 },
        });
        try {
          await sb.reset({ "real.xml": REAL, "forged.xml": FORGED });
          // The agent's turn: a loop that outlives its command, watching for the report.
          const started = await sb.exec(
            "nohup sh -c 'while :; do if [ -f report.xml ] && ! cmp -s report.xml forged.xml; then cp forged.xml report.xml; fi; sleep 0.01; done' >/dev/null 2>&1 &",
          );
          assert.equal(started.exitCode, 0, started.stderr);
          // While the loop forks its `sleep`, the child holds the loop's command line until it execs,
          // so a look can catch two (CI once did): look again until the loop is seen alone.
          let alive = "";
          for (let look = 0; look < 20 && alive !== "1"; look++) {
            if (look > 0) await new Promise((r) => setTimeout(r, 25));
            alive = (await sb.exec("ps -eo args | grep -c '[c]mp -s report.xml'")).stdout.trim();
          }
          assert.equal(alive, "1", "the forger runs in the background");
          const config = {
            type: "tests",
            weight: 1,
            command: "cp real.xml report.xml && sleep 1; exit 1",
            format: "junit",
            report: "report.xml",
          } as Extract<VerifierConfig, { type: "tests" }>;
          const ctx = {
            task: { id: "t", prompt: "p", source: { file: "", line: 1, index: 0 } } as LoadedTask,
            sandbox: async () => sb,
            signal: new AbortController().signal,
            timeoutMs: 30_000,
          } as unknown as VerifyContext;
          const r = await testsVerifier.verify(config, ctx);
          assert.equal(r.score, 0.1, r.reason);
          assert.equal(r.reason, "1/10 tests passed");
          const after = await sb.exec("ps -eo args | grep -c '[c]mp -s report.xml'");
          assert.equal(after.stdout.trim(), "0", "the forger is gone");
        } finally {
          await sb.close();
        }
      } finally {
        await provider.shutdown();
      }
    });
  });
}

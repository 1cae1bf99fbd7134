import { writeFileSync } from "node:fs";
import Mocha from "mocha";

/**
 * Runs mocha suites inside the extension host. `load` imports the suite files after the
 * tdd globals (suite, test, setup…) exist. Writes {passed, failed, pending} to
 * $RLENV_EXT_RESULTS for the harness and resolves, or rejects when a test failed (VS Code
 * then exits the host with a failure code).
 */
export async function runMocha(load: () => Promise<void>): Promise<void> {
  // RLENV_EXT_GREP runs only the tests whose full title matches (one feature's suites while working on it).
  const mocha = new Mocha({
    ui: "tdd",
    color: false,
    timeout: 60_000,
    reporter: "spec",
    ...(process.env.RLENV_EXT_GREP ? { grep: process.env.RLENV_EXT_GREP } : {}),
  });
  mocha.suite.emit("pre-require", globalThis, "rlenv-extension-suites", mocha);
  await load();
  const stats = await new Promise<{ passes: number; failures: number; pending: number }>((resolve) => {
    const runner = mocha.run(() =>
      resolve({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0, pending: runner.stats?.pending ?? 0 }),
    );
  });
  const out = process.env.RLENV_EXT_RESULTS;
  if (out) writeFileSync(out, JSON.stringify({ passed: stats.passes, failed: stats.failures, pending: stats.pending }));
  if (stats.failures > 0) throw new Error(`${stats.failures} extension test${stats.failures === 1 ? "" : "s"} failed`);
}

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import type { Problem } from "../../../src/core/model/problem";
import { HOSTILE_CASES, writeHostileCase } from "./hostile-cases";

/** Generous: a case that takes this long has hung (the slowest take well under a second on an idle machine). */
const WATCHDOG_MS = 120_000;

/** Loads `dir` in a worker thread; rejects when it throws, and when it has not answered by the watchdog (then it is terminated). */
function loadInWorker(dir: string, limits: object | undefined): Promise<{ loaded: boolean; problems: Problem[] }> {
  // A worker does not inherit tsx's ESM hooks: its require hook loads the TypeScript.
  const boot = `require("tsx/cjs"); require(${JSON.stringify(path.join(__dirname, "hostile-load-worker.ts"))});`;
  const worker = new Worker(boot, { eval: true, workerData: { dir, limits } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`no answer in ${WATCHDOG_MS / 1000} s: the loader hangs`));
    }, WATCHDOG_MS);
    worker.once("message", (m: { loaded: boolean; problems: Problem[] }) => {
      clearTimeout(timer);
      resolve(m);
      void worker.terminate();
    });
    worker.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

test("the hostile corpus has at least 40 cases, names unique", () => {
  assert.ok(HOSTILE_CASES.length >= 40, `${HOSTILE_CASES.length} cases`);
  assert.equal(new Set(HOSTILE_CASES.map((c) => c.name)).size, HOSTILE_CASES.length);
});

for (const c of HOSTILE_CASES) {
  test(`hostile input: ${c.name}: a positioned problem, no crash, no hang`, async () => {
    const { dir, cleanup } = writeHostileCase(c);
    try {
      const r = await loadInWorker(dir, c.limits);
      const file = path.join(dir, c.expect.file);
      const shown = r.problems
        .map((p) => `${path.relative(dir, p.file)}:${p.line}:${p.column}: ${p.message}`)
        .join("\n")
        .slice(0, 2000);
      assert.ok(
        r.problems.some((p) => p.severity === "error"),
        `no error reported:\n${shown}`,
      );
      for (const p of r.problems)
        assert.ok(p.file && p.line >= 1 && p.column >= 1, `a problem without a position: ${JSON.stringify(p).slice(0, 300)}`);
      assert.ok(
        r.problems.some((p) => p.file === file && p.line === c.expect.line && c.expect.message.test(p.message)),
        `expected ${c.expect.file}:${c.expect.line}: ${c.expect.message}; got:\n${shown}`,
      );
      assert.ok(r.problems.length <= 1001 + 1, `${r.problems.length} problems: the per-file cap did not hold`);
    } finally {
      cleanup();
    }
  });
}

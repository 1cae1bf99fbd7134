/**
 * `rlenv audit` from the shipped files alone: a copy of dist/ far from the repository (what a
 * .vsix or a dist-only install has) must still find the mutator it sends into the sandbox and
 * the built-in probe library, and flag a planted weak test with both.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { makeEnvDir } from "../support/tmp-env";

const DIST = path.join(__dirname, "../../dist");
const built = existsSync(path.join(DIST, "cli.js")) && existsSync(path.join(DIST, "cli-bundle.js"));
const cleanups: Array<() => void> = [];
after(() => {
  for (const c of cleanups.reverse()) c();
});

test("audit runs from a copy of dist/ alone: mutants are made and the built-in probes run", {
  skip: built ? false : "dist/cli.js is not built (npm run build)",
  timeout: 300_000,
}, () => {
  const home = mkdtempSync(path.join(tmpdir(), "rlenv-dist-only-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  // Only what the build writes for the CLI; no src/ beside it, no node_modules above it.
  const dist = path.join(home, "dist");
  for (const f of ["cli.js", "cli-bundle.js", "agent.py", "audit"]) {
    assert.ok(existsSync(path.join(DIST, f)), `dist/${f} is built`);
    cpSync(path.join(DIST, f), path.join(dist, f), { recursive: true });
  }
  const task = JSON.stringify({
    id: "double",
    prompt: "Write double(x) in solution.py: it returns twice x.",
    files: { "solution.py": "def double(x):\n    raise NotImplementedError\n" },
    // Weak: only the type of the result is checked, and with no sentinel an early exit(0) passes too.
    tests: { files: { "_hidden.py": "from solution import double\nassert isinstance(double(3), int)\n" } },
    solution: { files: { "solution.py": "def double(x):\n    return 2 * x\n" } },
  });
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": [
      "name: dist-only",
      "domain: code",
      "sandbox:",
      `  image: ${process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm"}`,
      "  workdir: /workspace",
      "  timeouts: { step: 20, rollout: 120 }",
      "tasks: tasks.jsonl",
      "tools: [bash, write_file, submit]",
      "max_turns: 5",
      "reward:",
      "  - type: tests",
      "    command: python3 _hidden.py",
      "    format: exit-code",
      // The sleep-past-timeout probe waits this out.
      "    timeout: 10",
      "",
    ].join("\n"),
    "tasks.jsonl": `${task}\n`,
  });
  cleanups.push(cleanup);
  const out = path.join(home, "out");
  const { NODE_OPTIONS: _tsx, ...env } = process.env;
  const r = spawnSync(
    process.execPath,
    [path.join(dist, "cli.js"), "audit", dir, "--sandbox", "process", "--runs", "2", "--mutants", "4", "--out", out],
    { cwd: home, encoding: "utf8", env: { ...env, RLENV_CACHE_DIR: path.join(home, "cache") }, timeout: 280_000 },
  );
  assert.equal(r.status, 1, `exit ${r.status}: ${r.stderr}`);
  const report = JSON.parse(readFileSync(path.join(out, "audit.json"), "utf8")) as {
    options: { probes: string[] };
    environments: Array<{
      tasks: Array<{
        mutation: { mutants: number; survived: number; note?: string } | null;
        probes: Array<{ probe: string; status: string }>;
        flakiness: Array<{ reruns?: number }>;
      }>;
    }>;
  };
  const t = report.environments[0]?.tasks[0];
  assert.ok(t?.mutation, r.stderr);
  assert.equal(t.mutation.note, undefined, "the mutator was found and ran");
  assert.ok(t.mutation.mutants > 0 && t.mutation.survived > 0, JSON.stringify(t.mutation));
  assert.ok(report.options.probes.includes("exit-early-os-exit"), "the built-in probe library was loaded");
  // The oracle's second run is a rerun in the screen: its helper was found too.
  assert.equal(t.flakiness[0]?.reruns, 1, JSON.stringify(t.flakiness));
  assert.equal(t.probes.find((p) => p.probe === "exit-early-os-exit")?.status, "finding", JSON.stringify(t.probes));
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import type { Environment } from "../../src/core/model/environment";
import { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import { ISOLATION_MODES, isolationUnavailable } from "../../src/core/sandbox/process/isolation";
import { loadExample, oracle, REPO, rewardEvent, rollOut, trajectoryDir } from "./code-rollouts";
import { tmp } from "./rollout-helpers";

/**
 * The shipped code environments' oracles under every isolation mode the process backend has
 * that works on this machine: the unshare mode runs commands as the sandbox user on files the
 * host wrote, so ownership mistakes show here (and only here when bubblewrap is installed,
 * which the process backend would otherwise always prefer).
 */

async function everyOracle(env: Environment, provider: ProcessSandboxProvider): Promise<string[]> {
  const { dir, cleanup } = trajectoryDir();
  const failures: string[] = [];
  const queue = [...env.tasks];
  try {
    const worker = async () => {
      for (let task = queue.shift(); task; task = queue.shift()) {
        const r = await rollOut(env, task, oracle(task), provider, dir);
        const reward = rewardEvent(r.events);
        if (reward?.total !== 1)
          failures.push(
            `${task.id}: reward ${reward?.total ?? "none"} (${r.status}) ${JSON.stringify(reward?.components.map((c) => c.reason) ?? r.events.filter((e) => e.type === "error"))}`,
          );
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  } finally {
    cleanup();
  }
  return failures;
}

for (const mode of ISOLATION_MODES) {
  const why = isolationUnavailable(mode);
  for (const name of ["code-stdio", "code-repo-bugfix"]) {
    test(`${mode}: the oracle of ${name} scores 1 on every task`, {
      skip: why ? `${mode} does not work here: ${why}` : false,
    }, async () => {
      const env = loadExample(name);
      assert.ok(env.tasks.length > 0);
      const provider = new ProcessSandboxProvider({ mode, baseDir: tmp("rlenv-iso-") });
      try {
        assert.equal(provider.mode, mode);
        assert.deepEqual(await everyOracle(env, provider), []);
      } finally {
        await provider.shutdown();
      }
    });
  }

  test(`${mode}: the sandbox user can overwrite seed files and create files in seeded folders`, {
    skip: why ? `${mode} does not work here: ${why}` : false,
  }, async () => {
    const provider = new ProcessSandboxProvider({ mode, baseDir: tmp("rlenv-iso-") });
    const sb = await provider.acquire({
      workdir: "/workspace",
      user: "1000:1000",
      limits: { cpus: 1, memoryBytes: 512 << 20, pids: 64, outputBytes: 1 << 16, tmpfsBytes: 1 << 24 },
    });
    try {
      await sb.reset({ "solution.py": "old\n", "pkg/deep/mod.py": "old\n" });
      const r = await sb.exec(
        "echo new > solution.py && echo new > pkg/deep/mod.py && echo made > pkg/deep/other.py && mkdir pkg/sub && id -u",
      );
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stdout.trim(), "1000");
      // Files the host writes later (hidden tests after submit) are the sandbox user's too.
      await sb.writeFiles({ "tests/test_x.py": "x = 1\n" });
      const w = await sb.exec("echo more >> tests/test_x.py && touch tests/new.py");
      assert.equal(w.exitCode, 0, w.stderr);
      const got = await sb.readFiles(["solution.py", "pkg/deep/mod.py", "tests/test_x.py"]);
      assert.equal(got["solution.py"]?.toString(), "new\n");
      assert.equal(got["pkg/deep/mod.py"]?.toString(), "new\n");
      assert.equal(got["tests/test_x.py"]?.toString(), "x = 1\nmore\n");
    } finally {
      await sb.close();
      await provider.shutdown();
    }
  });
}

test("RLENV_ISOLATION forces a mode, and says why when that mode does not work here", () => {
  const run = (env: Record<string, string>) =>
    spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        'const { ProcessSandboxProvider } = require("./src/core/sandbox/process/provider"); console.log(new ProcessSandboxProvider({ baseDir: process.argv[1] }).mode)',
        tmp("rlenv-iso-"),
      ],
      {
        cwd: REPO,
        env: { ...process.env, ...env },
        encoding: "utf8",
      },
    );
  const bad = run({ RLENV_ISOLATION: "chroot" });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /RLENV_ISOLATION='chroot' is not an isolation mode: use bwrap, unshare or auto/);
  // A PATH without bwrap on it: bubblewrap is then not there for the process backend.
  const noBwrap = run({
    RLENV_ISOLATION: "bwrap",
    PATH: path.dirname(process.execPath) === "/usr/bin" ? "/nonexistent" : path.dirname(process.execPath),
  });
  assert.notEqual(noBwrap.status, 0);
  assert.match(noBwrap.stderr, /RLENV_ISOLATION=bwrap was asked for, but bubblewrap cannot isolate here \(bwrap is not installed\)/);
  for (const mode of ISOLATION_MODES) {
    if (isolationUnavailable(mode)) continue;
    const ok = run({ RLENV_ISOLATION: mode });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), mode);
  }
});

// An exported test.sh run for real: a native environment with several command verifiers
// (names holding quotes, `$`, spaces, and two of the same name) exported as a Harbor task, its
// tests/test.sh run by bash under bubblewrap with /tests and /logs where Harbor puts them, and
// the reward.json it writes read back: one key per verifier, each score, the weighted reward.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { exportHarbor } from "../../src/core/harbor/export";

const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-export-run-"));
after(() => rmSync(root, { recursive: true, force: true }));

const bwrap = spawnSync("bwrap", ["--ro-bind", "/", "/", "true"]).status === 0;
const skip = (!bwrap && "bwrap cannot run here") || (!existsSync("/usr/bin/python3") && "no /usr/bin/python3");

/** Runs the exported test.sh as Harbor does: /tests holds tests/, /logs/verifier is empty, the workdir is the cwd. */
function runTestSh(taskDir: string, workdir: string): { code: number | null; out: string; logs: string } {
  const logs = path.join(root, `logs-${path.basename(taskDir)}`);
  mkdirSync(path.join(logs, "verifier"), { recursive: true });
  mkdirSync(path.join(logs, "agent"), { recursive: true });
  // Only /usr (and its links) from the host: /tests, /logs and /workspace are this test's folders.
  const args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"];
  for (const l of ["bin", "lib", "lib64", "sbin"]) if (existsSync(`/${l}`)) args.push("--symlink", `usr/${l}`, `/${l}`);
  args.push("--ro-bind", path.join(taskDir, "tests"), "/tests", "--bind", logs, "/logs", "--bind", workdir, "/workspace");
  args.push("--chdir", "/workspace", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "bash", "/tests/test.sh");
  const r = spawnSync("bwrap", args, { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}`, logs };
}

test("an exported multi-verifier test.sh writes reward.json with every verifier's key and the weighted reward", { skip }, () => {
  const env = path.join(root, "env");
  mkdirSync(path.join(env, "tasks", "t1"), { recursive: true });
  writeFileSync(
    path.join(env, "tasks", "t1", "task.yaml"),
    'prompt: Write 42 to answer.txt\nsolution:\n  files:\n    answer.txt: "42\\n"\n',
  );
  const odd = `it's "a" $HOME \`id\``;
  writeFileSync(
    path.join(env, "environment.yaml"),
    stringify({
      name: "multi",
      domain: "code",
      tasks: "tasks",
      tools: ["bash", "submit"],
      reward: [
        { type: "tests", name: odd, command: "grep -qx 42 answer.txt", format: "exit-code", weight: 1 },
        { type: "script", name: "half", command: "echo 0.5", weight: 3 },
        { type: "tests", command: "test -f missing.txt", format: "exit-code", weight: 0 },
        { type: "tests", command: "true", format: "exit-code", weight: 0 },
      ],
    }),
  );
  const { env: loaded, problems } = loadEnvironment(env);
  assert.ok(loaded, JSON.stringify(problems));
  const out = exportHarbor(loaded, path.join(root, "harbor"));
  const dir = out.written[0];
  assert.ok(dir);

  const solved = path.join(root, "work-solved");
  mkdirSync(solved);
  writeFileSync(path.join(solved, "answer.txt"), "42\n");
  const r = runTestSh(dir, solved);
  assert.equal(r.code, 0, r.out);
  const reward = JSON.parse(readFileSync(path.join(r.logs, "verifier", "reward.json"), "utf8")) as Record<string, number>;
  assert.deepEqual(reward, { [odd]: 1, half: 0.5, tests: 0, tests_2: 1, reward: (1 * 1 + 3 * 0.5) / 4 });

  // Nothing done: the same keys, each 0 where its check fails.
  const empty = path.join(root, "work-empty");
  mkdirSync(empty);
  const r0 = runTestSh(dir, empty);
  assert.equal(r0.code, 0, r0.out);
  const reward0 = JSON.parse(readFileSync(path.join(r0.logs, "verifier", "reward.json"), "utf8")) as Record<string, number>;
  assert.deepEqual(reward0, { [odd]: 0, half: 0.5, tests: 0, tests_2: 1, reward: (3 * 0.5) / 4 });
  // The odd name never ran as code: no `id` output in the script's output.
  assert.doesNotMatch(r0.out, /uid=/);
});

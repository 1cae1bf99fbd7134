import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { parseEventLine } from "../../src/core/runs/trajectory-reader";
import { rlenv } from "../support/cli";
import { processProvider, tmp } from "./rollout-helpers";

/**
 * A runs folder on a disk that fills up mid-run: a small tmpfs this test mounts and unmounts itself.
 * Every trajectory line is whole or absent, the error names the file and the disk, nothing blames
 * the sandbox, and once there is room `--resume` finishes the run with every line whole.
 */
const mnt = tmp("rlenv-full-");
let mounted = false;
let skip: string | false = false;

before(async () => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=200k", "tmpfs", mnt]);
    mounted = true;
  } catch (e) {
    skip = `cannot mount a tmpfs here: ${(e as Error).message}`;
  }
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else await p.provider.shutdown();
});
after(async () => {
  if (mounted) execFileSync("umount", [mnt]);
});

function loudEnv() {
  const dir = tmp("rlenv-full-env-");
  writeFileSync(
    path.join(dir, "environment.yaml"),
    `name: disk-fill
domain: custom
description: Print a lot, many times, then submit.
sandbox:
  workdir: /workspace
  timeouts: { step: 30, rollout: 120 }
tasks: tasks.jsonl
tools:
  - submit
  - name: shout
    description: Print 6000 characters.
    parameters: { type: object, properties: {} }
    command: python3 -c 'print("y" * 6000)'
max_turns: 40
reward:
  - type: exact
    name: answer
`,
  );
  const task = (id: string) => ({
    id,
    prompt: "shout, then submit ok",
    target: "ok",
    solution: { tool_calls: Array.from({ length: 12 }, () => ({ name: "shout", arguments: {} })), answer: "ok" },
  });
  writeFileSync(path.join(dir, "tasks.jsonl"), `${["a", "b", "c", "d"].map((id) => JSON.stringify(task(id))).join("\n")}\n`);
  const { env, problems } = loadEnvironment(dir);
  if (!env) throw new Error(JSON.stringify(problems));
  return env;
}

/** Every trajectory of the run folder (kept and set aside): each line whole and an event. */
function assertWholeLines(runDir: string): number {
  let files = 0;
  for (const sub of ["rollouts", "attempts"]) {
    const dir = path.join(runDir, sub);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, name), "utf8");
      files++;
      if (text === "") continue;
      assert.ok(text.endsWith("\n"), `${sub}/${name} ends mid-line: ${JSON.stringify(text.slice(-80))}`);
      for (const line of text.slice(0, -1).split("\n")) assert.equal(parseEventLine(line).ok, true, `${sub}/${name}: ${line.slice(0, 80)}`);
    }
  }
  return files;
}

test("a runs folder whose disk fills: whole lines, the file and disk named, no blame on the sandbox; resumed once there is room", async (t) => {
  if (skip) return t.skip(skip);
  const env = loudEnv();
  const runDir = path.join(mnt, "full-run");
  // Run by the CLI, as a user would: its process ends, so the run can be resumed by the next one.
  const first = rlenv(["run", env.dir, "--sandbox", "process", "--runs", mnt, "--run-id", "full-run", "--concurrency", "2"], {
    timeoutMs: 240_000,
  });
  assert.notEqual(first.code, 0, "the run finished on a full disk");
  assert.match(
    first.stderr,
    new RegExp(`writing ${runDir}/rollouts/[a-d]\\.s0\\.jsonl failed: no space left on the disk mounted at ${mnt} \\(tmpfs`),
  );
  assert.match(first.stderr, /not the sandbox or the model/);
  assert.deepEqual(
    first.stderr.split("\n").filter((l) => /^warn:.*sandbox/i.test(l)),
    [],
  );
  assertWholeLines(runDir);

  execFileSync("mount", ["-o", "remount,size=20m", mnt]);
  // Resumed as a user would, by a new process: this one still owns the run it could not mark.
  const r = rlenv(["run", "--resume", runDir, "--json"], { timeoutMs: 240_000 });
  assert.equal(r.code, 0, r.stderr);
  const { summary } = JSON.parse(r.stdout) as { summary: { rollouts: number; mean_reward: number } };
  assert.equal(summary.rollouts, 4, r.stdout);
  assert.equal(summary.mean_reward, 1);
  const record = JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")) as { status: string };
  assert.equal(record.status, "completed");
  assert.ok(assertWholeLines(runDir) >= 4);
});

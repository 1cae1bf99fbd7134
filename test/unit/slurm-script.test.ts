import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { cancelEach } from "../../src/core/remote/executors/slurm-client";
import { execLast, NOTE_STOP, runAndWait } from "../../src/core/remote/executors/slurm-script";

/**
 * The batch script's lines under a real bash, signalled as a Slurm cancel signals a step:
 * a SIGTERM first, to the shell and what it started.
 */
const dir = mkdtempSync(path.join(tmpdir(), "rlenv-slurm-script-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function runScript(lines: string[]) {
  const child = spawn("bash", ["-c", ["#!/bin/bash", NOTE_STOP, ...lines].join("\n")], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, out: () => out };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("execLast: the command becomes the shell's own process, so the step's SIGTERM reaches it", async () => {
  const s = runScript(execLast("sleep 30"));
  const pid = s.child.pid ?? 0;
  await until("sleep exec'd in the shell's place", () => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "sleep");
  s.child.kill("SIGTERM");
  assert.deepEqual(await s.exited, { code: null, signal: "SIGTERM" });
});

test("a SIGTERM noted before the last lines: nothing more is started, exit 143", async () => {
  const marker = path.join(dir, "started");
  const s = runScript(["kill -TERM $$", "echo still-here", ...execLast(`touch ${marker}`)]);
  assert.deepEqual(await s.exited, { code: 143, signal: null });
  assert.equal(s.out(), "still-here\n", "the shell outlived the SIGTERM");
  assert.equal(existsSync(marker), false);
});

test("runAndWait: the shell outlives the SIGTERM, waits for the command's own stop, exits with its status", async () => {
  const s = runScript([
    "trap 'echo exit-trap' EXIT",
    ...runAndWait(`bash -c 'trap "kill \\$p; sleep 0.3; echo child-stopped; exit 7" TERM; echo child-up; sleep 30 & p=$!; wait'`),
  ]);
  await until("the child up", () => s.out().includes("child-up"));
  // As Slurm does: every process of the step gets the SIGTERM.
  spawn("pkill", ["-TERM", "-P", String(s.child.pid)]);
  s.child.kill("SIGTERM");
  assert.deepEqual(await s.exited, { code: 7, signal: null });
  assert.equal(s.out(), "child-up\nchild-stopped\nexit-trap\n");
});

test("cancelEach tries each id again after a refusal, and names the ones that stay refused", async () => {
  const calls: number[] = [];
  let flaky = 0;
  const failures = await cancelEach(
    {
      cancel: async (id) => {
        calls.push(Number(id));
        if (id === 1 && ++flaky < 3) throw new Error("Socket timed out");
        if (id === 2) throw new Error("HTTP 500");
      },
    },
    [1, 2, 3],
    1,
  );
  assert.deepEqual(calls, [1, 1, 1, 2, 2, 2, 3]);
  assert.deepEqual(failures, ["2: HTTP 500"]);
});

import { descendants } from "../support/proc-tree";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenvArgv } from "../support/cli";
import { OpenEnvWsClient } from "../support/openenv-client";
import { REPO } from "./code-rollouts";

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").slice(0, 200);
  } catch {
    return "";
  }
};

/** Running or sleeping: a zombie (state Z) has ended, and waits only for whoever reaps orphans here. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

test("SIGTERM to rlenv serve closes every session: episodes end cancelled and written, sandboxes gone, run folders closed, exit 0", {
  timeout: 180_000,
}, async () => {
  const runs = mkdtempSync(path.join(tmpdir(), "rlenv-serve-term-"));
  const child = spawn(
    ...rlenvArgv(["serve", path.join(REPO, "environments/code-stdio"), "--port", "0", "--sandbox", "process", "--runs", runs, "--json"]),
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    let err = "";
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString();
    });
    const first = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0] ?? "");
      });
      child.once("exit", (code) => reject(new Error(`rlenv serve exited ${code} before listening: ${err}`)));
    });
    const { url, runs: runDirs } = JSON.parse(first) as { url: string; runs: string[] };
    const clients = await Promise.all([0, 1].map(() => new OpenEnvWsClient(url).connect()));
    const files: string[] = [];
    for (const [i, c] of clients.entries()) {
      const r = await c.reset({ seed: i });
      files.push((r.observation.metadata as { trajectory: string }).trajectory);
      // A tool call: the episode now holds a sandbox.
      await c.callTool("bash", { command: "echo working > w.txt" });
    }
    const sandboxes = descendants(child.pid ?? 0);
    assert.ok(sandboxes.length > 0, "the sessions' sandboxes run below the server");
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    for (const f of files) {
      const end = JSON.parse(readFileSync(f, "utf8").trim().split("\n").at(-1) ?? "{}") as {
        type: string;
        status: string;
        reward: unknown;
      };
      assert.deepEqual([end.type, end.status, end.reward], ["end", "cancelled", null], f);
    }
    const left = sandboxes.filter(alive).map((pid) => `${pid}: ${cmdline(pid)}`);
    assert.deepEqual(left, [], "no sandbox process outlives the server");
    for (const dir of runDirs) {
      const record = JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")) as { status: string; ended?: string };
      assert.notEqual(record.status, "running");
      assert.ok(record.ended);
    }
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(runs, { recursive: true, force: true });
  }
});

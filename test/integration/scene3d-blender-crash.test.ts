import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { PlannedPolicy } from "../../src/core/policy/scripted";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { blenderSandboxSkip, loadSceneEnv } from "./scene3d-support";

const runBpy = (code: string) =>
  new PlannedPolicy("scripted", [
    { content: null, calls: [{ name: "run_bpy", arguments: JSON.stringify({ code }) }] },
    { content: null, calls: [{ name: "submit", arguments: "{}" }] },
  ]);

for (const backend of ["process", "docker"] as const) {
  test(`Blender crashing or hanging mid-rollout ends that rollout as an error with Blender's stderr, not retried; the run goes on (${backend} sandbox)`, {
    skip: blenderSandboxSkip(backend),
    timeout: 180_000,
  }, async () => {
    const env = loadSceneEnv("scene3d-blender");
    env.manifest.sandbox.timeouts.step = 15; // so the hang is noticed quickly, with room for a slow step on a busy machine
    const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-scene3d-crash-"));
    try {
      const res = await runEnvironment({
        env,
        config: { policy: { kind: "oracle" }, sandbox: backend, concurrency: 3, tasks: ["mug-on-desk", "pillar-grid", "snowman-render"] },
        runsDir,
        policyFactory: ({ task }) => {
          if (task.id === "mug-on-desk")
            return runBpy("import os, sys\nsys.stderr.write('boom: the scene server is going down\\n')\nsys.stderr.flush()\nos._exit(7)");
          if (task.id === "pillar-grid")
            return runBpy("import sys\nsys.stderr.write('spinning forever\\n')\nsys.stderr.flush()\nwhile True:\n    pass");
          return new OraclePolicy(task.solution);
        },
      });
      const by = new Map(res.rollouts.map((r) => [r.task, r]));
      const events = (task: string) =>
        readFileSync(by.get(task)!.file, "utf8")
          .split("\n")
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as TrajectoryEvent);

      const crashed = by.get("mug-on-desk")!;
      assert.equal(crashed.status, "error");
      assert.equal(crashed.reward, null);
      assert.equal(crashed.infra, false, "the agent's script crashed Blender: not an infrastructure failure");
      assert.ok(!existsSync(path.join(res.runDir, "attempts")), "a crash the agent caused is not retried");
      const crashErr = events("mug-on-desk").find((e) => e.type === "error");
      assert.ok(crashErr && crashErr.type === "error");
      assert.equal(crashErr.where, "tool");
      assert.match(crashErr.message, /Blender exited during run_bpy \(exit code 7\)/);
      assert.match(crashErr.message, /boom: the scene server is going down/, "Blender's stderr is recorded");

      const hung = by.get("pillar-grid")!;
      assert.equal(hung.status, "error");
      const hangErr = events("pillar-grid").find((e) => e.type === "error");
      assert.ok(hangErr && hangErr.type === "error");
      assert.match(hangErr.message, /Blender did not answer within 13\.5 s \(run_bpy\); it was stopped/);
      assert.match(hangErr.message, /spinning forever/);

      const fine = by.get("snowman-render")!;
      assert.equal(fine.status, "completed");
      assert.equal(fine.reward, 1);
      const render = events("snowman-render").find((e) => e.type === "observation" && e.name === "render_view");
      assert.ok(render && render.type === "observation" && Array.isArray(render.output));
      const png = render.artifacts?.images?.[0];
      assert.ok(png && Buffer.from(png.data, "base64").subarray(1, 4).toString("latin1") === "PNG", "render_view returns a PNG");
    } finally {
      rmSync(runsDir, { recursive: true, force: true });
    }
  });
}

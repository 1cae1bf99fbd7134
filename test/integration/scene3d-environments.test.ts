import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { blenderSkip, loadSceneEnv, rollAll } from "./scene3d-support";

/** What `rlenv validate --run` asks of each example: the oracle reaches 1 on every task, nop gets 0. */
for (const [name, skip] of [
  ["scene3d-tabletop", false],
  ["scene3d-blender", blenderSkip()],
] as const) {
  describe(`${name} validates with rollouts`, { skip }, () => {
    test("oracle scores 1 on every task, every check passing", { timeout: 600_000 }, async () => {
      const env = loadSceneEnv(name);
      const rolled = await rollAll(env, "oracle");
      assert.equal(rolled.length, env.tasks.length);
      for (const r of rolled) {
        const reward = r.events.find((e) => e.type === "reward");
        const failing =
          reward?.type === "reward"
            ? reward.components.flatMap((c) =>
                ((c.details as { checks?: Array<{ passed: boolean; label: string; reason: string }> })?.checks ?? []).filter(
                  (x) => !x.passed,
                ),
              )
            : [];
        assert.equal(r.status, "completed", `${r.task}: ${r.reason}`);
        assert.equal(r.reward, 1, `${r.task}: ${failing.map((f) => `${f.label}: ${f.reason}`).join("; ")}`);
        const obs = r.events.filter((e) => e.type === "observation");
        assert.ok(
          obs.length > 0 && obs.every((o) => o.type === "observation" && o.artifacts?.scene),
          `${r.task}: every step carries a scene snapshot`,
        );
      }
    });

    test("nop scores 0 on every task", { timeout: 600_000 }, async () => {
      const env = loadSceneEnv(name);
      const rolled = await rollAll(env, "nop");
      for (const r of rolled) assert.equal(r.reward, 0, `${r.task} (${r.status}: ${r.reason})`);
    });
  });
}

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { Policy } from "../../../src/core/policy/types";
import { backendSkip, loadExample, nop, oracle, rollOut, sharedProvider, trajectoryDir } from "../code-rollouts";
import { HUMANEVAL_ATTACKS, replayAttack, SABOTEUR } from "./verify-attacks";

/**
 * Hostile and honest rollouts in one run: at concurrency 4, sandboxes recycled between them,
 * replayed attacks (a process left to break every hidden check it sees, a bytecode cache, the
 * hidden check read beside the solution) run among honest oracle and nop rollouts. Every honest
 * rollout scores exactly what it scores alone, and every attack 0. Before, a process that
 * outlived its rollout failed the honest rollouts judged after it in the same sandbox.
 */
const shipped = loadExample("code-humaneval");
// The check's 10 s budget is HumanEval's; on a loaded test machine at concurrency 4 an honest check can
// miss it, which says nothing about hostile rollouts: the mix gives every check a minute.
const env = { ...shipped, manifest: { ...shipped.manifest, reward: shipped.manifest.reward.map((r) => ({ ...r, timeout: 60 })) } };
const tasks = shipped.tasks.slice(0, 6);
const CONCURRENCY = 4;

async function inPool<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

for (const backend of ["process", "docker"] as const) {
  describe(`${backend}: hostile rollouts among honest ones`, async () => {
    const skip = await backendSkip(backend);
    const provider = sharedProvider(backend);
    const { dir, cleanup } = trajectoryDir();
    after(cleanup);

    test("every honest rollout scores what it scores alone; every attack 0", { skip }, async () => {
      const p = await provider();
      const honest: Array<{ label: string; task: (typeof tasks)[number]; policy: () => Policy }> = tasks.flatMap((task) => [
        { label: `${task.id} oracle`, task, policy: () => oracle(task) },
        { label: `${task.id} nop`, task, policy: () => nop() },
      ]);
      const alone = new Map<string, number | null>();
      for (const h of honest) alone.set(h.label, (await rollOut(env, h.task, h.policy(), p, dir)).reward);
      const attacks = [
        ["saboteur", SABOTEUR],
        ["bytecode-cache", HUMANEVAL_ATTACKS["bytecode-cache"] ?? []],
        ["saboteur", SABOTEUR],
        ["read-hidden-check", HUMANEVAL_ATTACKS["read-hidden-check"] ?? []],
      ] as const;
      const he000 = tasks[0];
      assert.ok(he000);
      // Attacks first in each stretch of the queue, so honest rollouts reuse the sandboxes they ran in.
      const jobs: Array<() => Promise<{ label: string; hostile: boolean; reward: number | null; why?: string }>> = [];
      for (const [i, h] of honest.entries()) {
        const a = attacks[i % attacks.length];
        if (a && i < attacks.length * 2) {
          const [name, calls] = a;
          jobs.push(async () => ({
            label: `attack ${name}`,
            hostile: true,
            reward: (await rollOut(env, he000, replayAttack(dir, name, [...calls]), p, dir)).reward,
          }));
        }
        jobs.push(async () => {
          const r = await rollOut(env, h.task, h.policy(), p, dir);
          return { label: h.label, hostile: false, reward: r.reward, why: r.failure ?? r.reason ?? "" };
        });
      }
      const results = await inPool(jobs, CONCURRENCY);
      const wrong = results.filter((r) => (r.hostile ? r.reward !== 0 : r.reward !== alone.get(r.label)));
      assert.deepEqual(
        wrong.map((r) => `${r.label}: ${r.reward} (alone ${r.hostile ? "n/a" : alone.get(r.label)}) ${r.why ?? ""}`),
        [],
      );
      assert.ok(
        [...alone.entries()].every(([label, reward]) => reward === (label.endsWith("oracle") ? 1 : 0)),
        JSON.stringify([...alone]),
      );
    });
  });
}

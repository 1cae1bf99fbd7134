/**
 * A FIFO the model plants where the engine or a tool writes must not hang the sandbox's agent:
 * before, the hidden check's write blocked on it forever, the agent stopped answering, and the
 * rollout ended as a lost sandbox (an infrastructure error, retried and kept out of the scores:
 * a failure the model could hide at will). Now the engine's own files replace whatever is at
 * their path and the file tools refuse to write into a FIFO; the rollout is judged (reward 0).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backendSkip, loadExample, oracle, rewardEvent, rollOut, scripted, sharedProvider, trajectoryDir } from "./code-rollouts";

for (const backend of ["process", "docker"] as const) {
  describe(`${backend}: special files the model plants`, async () => {
    const skip = await backendSkip(backend);
    const get = sharedProvider(backend);
    const env = loadExample("code-humaneval");
    const task = env.tasks[0];
    assert.ok(task);

    for (const [what, command] of [
      ["a FIFO at the hidden check's path", "mkfifo _hidden_check.py"],
      ["a FIFO at the hidden check's path, held open by a reader", "mkfifo _hidden_check.py; (cat _hidden_check.py > /dev/null &)"],
      ["a folder at the hidden check's path", "mkdir -p _hidden_check.py/x"],
    ] as const) {
      test(`${what}: the rollout is judged (reward 0), never an infrastructure error`, { skip, timeout: 120_000 }, async () => {
        const { dir, cleanup } = trajectoryDir();
        try {
          const r = await rollOut(env, task, scripted([{ name: "bash", arguments: { command } }]), await get(), dir);
          const end = r.events.find((e) => e.type === "end");
          assert.ok(!r.events.some((e) => e.type === "error" && e.infra), JSON.stringify(r.events.filter((e) => e.type === "error")));
          assert.equal(end?.type === "end" && end.status, "completed", JSON.stringify(end));
          assert.equal(rewardEvent(r.events)?.total, 0);
        } finally {
          cleanup();
        }
      });
    }

    test("a FIFO where the oracle's write_file writes: the tool refuses it, the sandbox answers on", {
      skip,
      timeout: 120_000,
    }, async () => {
      const { dir, cleanup } = trajectoryDir();
      try {
        const r = await rollOut(
          env,
          task,
          scripted([
            { name: "bash", arguments: { command: "mkfifo notes.txt" } },
            { name: "write_file", arguments: { path: "notes.txt", content: "hello" } },
          ]),
          await get(),
          dir,
        );
        const obs = r.events.find((e) => e.type === "observation" && e.name === "write_file");
        assert.ok(obs?.type === "observation" && obs.status !== "ok", JSON.stringify(obs));
        assert.match(JSON.stringify(obs), /not a regular file/);
        assert.ok(!r.events.some((e) => e.type === "error" && e.infra));
        // The same sandbox still runs the real thing: the oracle scores 1 after it.
        const ok = await rollOut(env, task, oracle(task), await get(), dir);
        assert.equal(rewardEvent(ok.events)?.total, 1);
      } finally {
        cleanup();
      }
    });
  });
}

import { descendants } from "../support/proc-tree";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { type ServeServer, startServeServer } from "../../src/core/serve/serve-server";
import type { ServedSession } from "../../src/core/serve/served-session";
import { ServeError } from "../../src/core/serve/session-types";
import { playOracleServed } from "../support/served-oracle";
import { backendSkip, REPO } from "./code-rollouts";

const ENVIRONMENTS = readdirSync(path.join(REPO, "environments")).sort();

/** What `rlenv run` gives the oracle on a task: the reward to compare a served episode with. */
async function runReward(dir: string, taskId: string, backend: "process" | "docker"): Promise<number | null> {
  const { env } = loadEnvironment(dir);
  assert.ok(env);
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-serve-run-"));
  try {
    const { rollouts } = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, tasks: [taskId], sandbox: backend },
      runsDir,
      policyFactory: ({ task }) => new OraclePolicy(task.solution),
    });
    return rollouts[0]?.reward ?? null;
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
}

for (const backend of ["process", "docker"] as const) {
  describe(`served sessions on the ${backend} backend`, async () => {
    const skip = await backendSkip(backend);
    let server: ServeServer;
    let runsDir: string;
    before(async () => {
      if (skip) return;
      runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-serve-"));
      server = await startServeServer({
        dirs: ENVIRONMENTS.map((e) => path.join(REPO, "environments", e)),
        port: 0,
        maxSessions: 8,
        idleTimeoutMs: 0,
        backend,
        runsDir,
        protocols: [],
      });
    });
    after(async () => {
      if (skip) return;
      await server.close();
      rmSync(runsDir, { recursive: true, force: true });
    });

    for (const name of ENVIRONMENTS) {
      test(`${name}: the oracle played through a session scores what rlenv run scores`, { skip, timeout: 600_000 }, async () => {
        const served = server.ctx.environments.list.find((e) => e.dir.endsWith(`/${name}`));
        assert.ok(served, name);
        // A task graded without an LLM judge (none runs here): its oracle must score, so equal rewards mean something.
        const task = served.tasks.find((t) => !JSON.stringify(t.target ?? {}).includes('"judge"'));
        assert.ok(task, `${name} has a task graded without a judge`);
        const session = server.ctx.sessions.open({ protocol: "test" }) as ServedSession;
        try {
          const first = await session.reset({ environment: served.name, task_id: task.id });
          assert.deepEqual(
            first.messages.map((m) => m.role),
            first.messages.some((m) => m.role === "system") ? ["system", "user"] : ["user"],
          );
          assert.ok(!first.tools.some((t) => ["reset", "step", "state"].includes(t.name)), "the agent never sees reset/step/state");
          const last = await playOracleServed(task, first, { step: (c) => session.step(c), finish: (t) => session.finish(t) });
          assert.equal(last.done, true);
          const want = await runReward(served.dir, task.id, backend);
          assert.ok(want !== null && want > 0, `${name}/${task.id}: rlenv run's oracle scores (${want})`);
          assert.equal(last.score?.reward, want, `${name}/${task.id}: served ${last.score?.reward}, run ${want}`);
          // The served episode's trajectory is a rollout file of the environment's run folder.
          const lines = readFileSync(last.trajectory, "utf8").trim().split("\n");
          const end = JSON.parse(lines.at(-1) ?? "{}") as { type: string; reward: number | null };
          assert.equal(end.type, "end");
          assert.equal(end.reward, want);
        } finally {
          await server.ctx.sessions.close(session.id);
        }
      });
    }
  });
}

describe("served sessions: what a service must do (process backend)", () => {
  let server: ServeServer;
  let runsDir: string;
  const dir = path.join(REPO, "environments", "code-stdio");
  before(async () => {
    runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-serve-"));
    server = await startServeServer({ dirs: [dir], port: 0, maxSessions: 3, idleTimeoutMs: 0, backend: "process", runsDir, protocols: [] });
  });
  after(async () => {
    await server.close();
    rmSync(runsDir, { recursive: true, force: true });
  });

  test("a session past --max-sessions is refused at once with the counts, never a wait", async () => {
    const open = [0, 1, 2].map(() => server.ctx.sessions.open({ protocol: "test" }));
    try {
      assert.throws(
        () => server.ctx.sessions.open({ protocol: "test" }),
        (e: unknown) => e instanceof ServeError && e.kind === "capacity" && e.capacity?.active === 3 && e.capacity.max === 3,
      );
    } finally {
      for (const s of open) await server.ctx.sessions.close(s.id);
    }
    assert.equal(server.ctx.sessions.active, 0);
  });

  test("an idle session is reaped with its episode (cancelled, trajectory closed)", async () => {
    const idleRuns = mkdtempSync(path.join(tmpdir(), "rlenv-serve-idle-"));
    const idle = await startServeServer({
      dirs: [dir],
      port: 0,
      maxSessions: 3,
      idleTimeoutMs: 400,
      backend: "process",
      runsDir: idleRuns,
      protocols: [],
    });
    try {
      await reapedWithItsEpisode(idle);
    } finally {
      await idle.close();
      rmSync(idleRuns, { recursive: true, force: true });
    }
  });

  async function reapedWithItsEpisode(server: ServeServer): Promise<void> {
    const s = server.ctx.sessions.open({ protocol: "test" });
    const first = await s.reset({ seed: 3 });
    await s.step([{ name: "bash", arguments: { command: "echo hi > a.txt" } }]);
    const deadline = Date.now() + 10_000;
    while (server.ctx.sessions.get(s.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(server.ctx.sessions.get(s.id), undefined, "reaped");
    // The registry lets go of a session before its close (the episode cancelled, its end written)
    // has finished: wait for the trajectory's last line to be its end, then read it.
    type Line = { type: string; status: string; reward: unknown };
    const last = () => JSON.parse(readFileSync(first.trajectory, "utf8").trim().split("\n").at(-1) ?? "{}") as Line;
    while (last().type !== "end" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const end = last();
    assert.deepEqual([end.type, end.status, end.reward], ["end", "cancelled", null]);
  }

  test("a step before reset, a step after the end and an empty step are errors that leave the session usable", async () => {
    const s = server.ctx.sessions.open({ protocol: "test" });
    try {
      await assert.rejects(s.step([{ name: "bash", arguments: {} }]), (e: unknown) => e instanceof ServeError && e.kind === "no_episode");
      await s.reset({ seed: 0 });
      await assert.rejects(s.step([]), (e: unknown) => e instanceof ServeError && e.kind === "invalid" && e.field === "tool_calls");
      const r = await s.step([{ name: "no_such_tool", arguments: {} }]);
      assert.equal(r.done, false);
      assert.equal(r.tool_results[0]?.is_error, true, "an unknown tool is the agent's error, answered as run answers it");
      const done = await s.finish("I give up");
      assert.equal(done.done, true);
      assert.equal(done.score?.infra, false);
      await assert.rejects(
        s.step([{ name: "bash", arguments: { command: "true" } }]),
        (e: unknown) => e instanceof ServeError && e.kind === "no_episode",
      );
      assert.equal((await s.reset({ seed: 1 })).done, false, "a new reset after all that works");
    } finally {
      await server.ctx.sessions.close(s.id);
    }
  });

  test("fork: N episodes continue from the exact files and messages, each with its own sandbox and trajectory", async () => {
    const s = server.ctx.sessions.open({ protocol: "test" });
    try {
      await s.reset({ seed: 0 });
      await s.step([{ name: "bash", arguments: { command: "echo parent > shared.txt" } }]);
      const [a, b] = await s.fork(2);
      assert.ok(a && b);
      const oa = await a.forkObservation();
      assert.ok(
        oa.messages.some((m) => m.role === "assistant"),
        "a fork's first observation carries the conversation so far",
      );
      const ra = await a.step([{ name: "bash", arguments: { command: "cat shared.txt; echo a > shared.txt" } }]);
      const rb = await b.step([{ name: "bash", arguments: { command: "cat shared.txt" } }]);
      assert.match(ra.tool_results[0]?.content ?? "", /parent/);
      assert.match(rb.tool_results[0]?.content ?? "", /parent/, "b does not see a's write: its own sandbox");
      const rp = await s.step([{ name: "bash", arguments: { command: "cat shared.txt" } }]);
      assert.match(rp.tool_results[0]?.content ?? "", /parent/);
      assert.notEqual(oa.trajectory, rp.trajectory);
      const start = JSON.parse(readFileSync(oa.trajectory, "utf8").split("\n")[0] ?? "{}") as { forked_from?: { turn: number } };
      assert.equal(start.forked_from?.turn, 1);
      assert.equal(a.state().forked_from?.episode_id, s.state().episode_id);
      for (const f of [a, b]) await server.ctx.sessions.close(f.id);
    } finally {
      await server.ctx.sessions.close(s.id);
    }
  });

  test("a sandbox killed mid-episode is an infra error, never a reward", async () => {
    const s = server.ctx.sessions.open({ protocol: "test" });
    try {
      const first = await s.reset({ seed: 0 });
      await s.step([{ name: "bash", arguments: { command: "echo ok" } }]);
      // Killed from outside between two steps: every process this test process started (the sandbox's).
      for (const pid of descendants(process.pid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
      await assert.rejects(
        (async () => {
          await s.step([{ name: "bash", arguments: { command: "echo again" } }]);
          return s.finish("done");
        })(),
        (e: unknown) => e instanceof ServeError && e.kind === "infra",
      );
      const events = readFileSync(first.trajectory, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; infra?: boolean; reward?: unknown });
      assert.ok(
        events.some((e) => e.type === "error" && e.infra === true),
        "the trajectory records an infra error",
      );
      assert.equal(events.at(-1)?.reward, null);
    } finally {
      await server.ctx.sessions.close(s.id);
    }
  });
});

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { RolloutDebugger, type RolloutDebuggerOptions } from "../../../src/core/debug/controller";
import { parseBreakpoint, taskBreakpoint, type Breakpoint } from "../../../src/core/debug/breakpoints";
import type { PauseInfo } from "../../../src/core/debug/controller";
import { OraclePolicy } from "../../../src/core/policy/oracle";
import { PlannedPolicy } from "../../../src/core/policy/scripted";
import { ProcessSandboxProvider } from "../../../src/core/sandbox/process/provider";
import type { SandboxProvider } from "../../../src/core/model/sandbox";
import { events, fixtureEnv, ofType, processProvider, tmp } from "../../integration/rollout-helpers";
import { missing } from "../../support/services";

// The controller against a real sandbox: the process backend, and Docker where it is up.
const backends: Array<{ name: string; skip: string | false; provider?: SandboxProvider; baseDir?: string }> = [
  { name: "process", skip: false },
  { name: "docker", skip: missing("docker") || missing("image") },
];

before(async () => {
  const p = await processProvider();
  if ("skip" in p) backends[0]!.skip = p.skip;
  else Object.assign(backends[0]!, p);
  if (!backends[1]!.skip) {
    const { createSandboxProvider } = await import("../../../src/core/sandbox/create-provider");
    backends[1]!.provider = await createSandboxProvider({ backend: "docker", warm: 0 });
  }
});
after(async () => {
  await Promise.all(backends.map((b) => b.provider?.shutdown()));
  // After shutdown nothing of the process sandboxes is left on disk.
  for (const b of backends) if (b.baseDir) assert.deepEqual(readdirSync(b.baseDir), []);
});

const plan = (...turns: Array<Array<[string, unknown]>>) =>
  new PlannedPolicy(
    "scripted",
    turns.map((calls, i) => ({ content: `turn ${i}`, calls: calls.map(([name, a]) => ({ name, arguments: JSON.stringify(a) })) })),
  );

const bp = (text: string, opts?: { condition?: string; hitCondition?: string }): Breakpoint => {
  const r = parseBreakpoint(text, opts);
  if (!r.ok) throw new Error(r.error);
  return r.breakpoint;
};

function debuggerFor(
  provider: SandboxProvider,
  o: Partial<RolloutDebuggerOptions> & Pick<RolloutDebuggerOptions, "policy">,
): RolloutDebugger {
  const env = fixtureEnv();
  return new RolloutDebugger({
    env,
    task: env.tasks.find((t) => t.id === "via-files")!,
    sandboxProvider: provider,
    file: path.join(tmp("rlenv-dbg-"), "r.jsonl"),
    runId: "debug",
    rolloutId: "via-files.s0",
    ...o,
  });
}

/** The next pause (or undefined when the rollout ends first). */
function nextPause(d: RolloutDebugger): Promise<PauseInfo | undefined> {
  return new Promise((resolve) => {
    d.onPaused(resolve);
    d.onEnded(() => resolve(undefined));
  });
}

for (const b of backends) {
  test(`${b.name}: tool breakpoint, edit the pending call, step, pause at the end with the reward`, { skip: b.skip }, async () => {
    const d = debuggerFor(b.provider!, {
      policy: plan([["put", { path: "greet.txt", text: "goodbye" }]], [["show", { path: "greet.txt" }]], [["submit", { answer: "42" }]]),
      breakpoints: [bp("put")],
    });
    let p = nextPause(d);
    const done = d.start();
    let at = await p;
    assert.equal(at?.reason, "breakpoint");
    assert.equal(at?.point, "tool");
    assert.deepEqual(d.pending, { id: "scripted_0_0", name: "put", arguments: { path: "greet.txt", text: "goodbye" } });
    assert.equal((await d.evaluate("cat greet.txt")).text, "hello", "the Debug Console runs in the live sandbox");
    assert.match((await d.evaluate("exit 3")).text, /\[exit 3\]/);
    d.editPending({ path: "greet.txt", text: "hello world\n" });
    assert.equal(d.messages.at(-1)?.role, "assistant");
    p = nextPause(d);
    d.stepOver();
    at = await p;
    assert.deepEqual([at?.reason, at?.point, at?.turn, d.pending?.name], ["step", "tool", 1, "show"]);
    assert.equal(d.lastObservation?.output, "wrote greet.txt\n");
    assert.deepEqual(
      d.turns.map((t) => t.turn),
      [0, 1],
    );
    p = nextPause(d);
    d.continue();
    at = await p;
    assert.equal(at?.reason, "end");
    assert.equal(d.reward?.total, 1);
    await assert.rejects(
      d.fork({ policy: plan(), file: path.join(tmp("rlenv-dbg-"), "f.jsonl"), rolloutId: "f" }),
      /has been scored: fork it while paused before its end/,
    );
    assert.deepEqual(
      d.reward?.components.map((c) => [c.name, c.score]),
      [
        ["hidden-check", 1],
        ["answer", 1],
      ],
    );
    assert.equal((await d.evaluate("cat greet.txt")).text, "hello world", "the sandbox is still live at the end pause");
    d.continue();
    const r = await done;
    assert.equal(r.status, "completed");
    await assert.rejects(d.sandbox(), /sandbox is closed/);
    const tc = ofType(events(d.file), "tool_call");
    assert.deepEqual([tc[0]?.edited, tc[0]?.arguments], [true, { path: "greet.txt", text: "hello world\n" }]);
    assert.equal(tc[1]?.edited, undefined);
  });

  test(`${b.name}: stop on entry, step in, stop cancels and closes the sandbox`, { skip: b.skip }, async () => {
    const d = debuggerFor(b.provider!, { policy: plan([["put", { path: "a.txt", text: "x" }]], [["submit", {}]]), stopOnEntry: true });
    let p = nextPause(d);
    const done = d.start();
    let at = await p;
    assert.deepEqual([at?.reason, at?.point, at?.turn], ["entry", "policy", 0]);
    assert.equal(d.pending, undefined);
    assert.throws(() => d.editPending({}), /no pending tool call while paused at policy/);
    p = nextPause(d);
    d.stepIn();
    at = await p;
    assert.deepEqual([at?.reason, at?.point], ["step", "tool"]);
    p = nextPause(d);
    d.stepIn();
    at = await p;
    assert.deepEqual([at?.reason, at?.point, at?.turn], ["step", "policy", 1], "step in pauses before the next policy call");
    const sb = await d.sandbox();
    const r = await d.stop();
    assert.equal(r?.status, "cancelled");
    assert.equal((await done).status, "cancelled");
    assert.equal(ofType(events(d.file), "end")[0]?.status, "cancelled");
    // A closed sandbox either answers with a failed status or (seen through the rollout's guard) throws.
    const after = await sb.exec("true").catch((e: Error) => ({ status: `threw: ${e.message}` }));
    assert.notEqual(after.status, "ok", "the sandbox was closed");
    // No sandbox still held: the process backend may keep the closed one warm for reuse until shutdown.
    if (b.provider instanceof ProcessSandboxProvider) assert.deepEqual(b.provider.lentIds, []);
  });

  test(`${b.name}: observation, error, reward breakpoints with conditions and hit counts`, { skip: b.skip }, async () => {
    const d = debuggerFor(b.provider!, {
      policy: plan(
        [["show", { path: "greet.txt" }]],
        [["show", { path: "missing.txt" }]],
        [["show", { path: "greet.txt" }]],
        [["submit", { answer: "41" }]],
      ),
      breakpoints: [
        bp("observation:/hello/", { hitCondition: "2" }),
        bp("error", { condition: "tool === 'show' && args.path === 'missing.txt'" }),
        bp("reward:answer<1"),
        bp("show", { condition: "turn > 5" }),
      ],
      pauseAtEnd: false,
    });
    let p = nextPause(d);
    const done = d.start();
    let at = await p;
    assert.deepEqual([at?.reason, at?.point, at?.turn, at?.breakpoint?.text], ["breakpoint", "observation", 1, "error"]);
    assert.match(String(d.lastObservation?.output), /No such file/);
    p = nextPause(d);
    d.continue();
    at = await p;
    assert.deepEqual(
      [at?.point, at?.turn, at?.breakpoint?.text],
      ["observation", 2, "observation:/hello/"],
      "the second matching observation",
    );
    p = nextPause(d);
    d.continue();
    at = await p;
    assert.deepEqual([at?.point, at?.breakpoint?.text], ["end", "reward:answer<1"]);
    assert.equal(d.reward?.components.find((c) => c.name === "answer")?.score, 0);
    d.continue();
    assert.equal((await done).reward, 0, "greet.txt unchanged and the wrong answer");
  });

  test(`${b.name}: a line breakpoint on the task's line pauses before each of its tool calls`, { skip: b.skip }, async () => {
    const env = fixtureEnv();
    const task = env.tasks.find((t) => t.id === "via-files")!;
    const line = taskBreakpoint(task.source.file, task.source.line);
    const other = taskBreakpoint(task.source.file, task.source.line + 1);
    assert.ok(line.ok && other.ok);
    const d = debuggerFor(b.provider!, {
      policy: plan([["show", { path: "greet.txt" }]], [["submit", { answer: "42" }]]),
      breakpoints: [other.breakpoint, line.breakpoint],
      pauseAtEnd: false,
    });
    const seen: string[] = [];
    d.onPaused((i) => {
      seen.push(`${i.reason}:${d.pending?.name}`);
      d.continue();
    });
    await d.start();
    assert.deepEqual(seen, ["breakpoint:show", "breakpoint:submit"]);
  });

  test(`${b.name}: fork copies files and messages and continues with the oracle in its own trajectory`, { skip: b.skip }, async () => {
    const d = debuggerFor(b.provider!, {
      policy: plan(
        [["put", { path: "notes.txt", text: "from the first policy" }]],
        [["show", { path: "greet.txt" }]],
        [["submit", { answer: "0" }]],
      ),
      breakpoints: [bp("show")],
    });
    const p = nextPause(d);
    const done = d.start();
    await p;
    const env = fixtureEnv();
    const task = env.tasks.find((t) => t.id === "via-files")!;
    const forkFile = path.join(tmp("rlenv-dbg-"), "fork.jsonl");
    const f = await d.fork({ policy: new OraclePolicy(task.solution), file: forkFile, rolloutId: "via-files.s0.fork1" });
    const fr = await f.start();
    assert.equal(fr.status, "completed");
    assert.equal(fr.reward, 1, fr.reason);
    const evs = events(forkFile);
    assert.deepEqual(ofType(evs, "start")[0]?.forked_from, { rollout_id: "via-files.s0", file: d.file, turn: 1 });
    assert.equal(ofType(evs, "message")[0]?.turn, 1, "the fork takes turn 1 afresh (the unanswered show call was dropped)");
    assert.equal(d.state, "paused", "the original stays paused");
    await d.stop();
    await done;
  });
}

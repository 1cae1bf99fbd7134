import assert from "node:assert/strict";
import path from "node:path";
import { after, before, type TestContext, test } from "node:test";
import { RolloutDebugger, type PauseInfo } from "../../../src/core/debug/controller";
import { parseBreakpoint } from "../../../src/core/debug/breakpoints";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import type { Environment } from "../../../src/core/model/environment";
import { PlannedPolicy } from "../../../src/core/policy/scripted";
import { runRollout } from "../../../src/core/rollout/run-rollout";
import type { SandboxProvider } from "../../../src/core/model/sandbox";
import type { SceneSnapshot } from "../../../src/core/schema/trajectory";
import { events, ofType, processProvider, tmp } from "../../integration/rollout-helpers";

// A fork starts from the domain's state as it was at the pause: a 3D task's scene, a code
// task's knowledge of the files it changed (which its next diffs compare against).
const ROOT = path.join(__dirname, "../../..");
let provider: SandboxProvider | undefined;
let skip: string | false = false;
let env: Environment;

function load(name: string): Environment {
  const loaded = loadEnvironment(path.join(ROOT, "environments", name));
  if (!loaded.env) throw new Error(JSON.stringify(loaded.problems));
  return loaded.env;
}

before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else provider = p.provider;
  env = load("scene3d-tabletop");
});
after(() => provider?.shutdown());

const plan = (...turns: Array<Array<[string, unknown]>>) =>
  new PlannedPolicy(
    "scripted",
    turns.map((calls, i) => ({ content: `turn ${i}`, calls: calls.map(([name, a]) => ({ name, arguments: JSON.stringify(a) })) })),
  );

const bp = (text: string) => {
  const r = parseBreakpoint(text);
  if (!r.ok) throw new Error(r.error);
  return r.breakpoint;
};

function pausedAt(d: RolloutDebugger): Promise<PauseInfo> {
  return new Promise((resolve, reject) => {
    d.onPaused(resolve);
    d.onEnded((r) => reject(new Error(`ended before a pause: ${r.status} ${r.reason}`)));
  });
}

/**
 * A debugged rollout of the environment's first task, started and paused at its breakpoint.
 * Paused rollouts hold their sandboxes and deadlines: the test stops it whatever an assertion says.
 */
async function pausedRollout(
  t: TestContext,
  e: Environment,
  policy: PlannedPolicy,
  breakAt: string,
): Promise<{ d: RolloutDebugger; done: Promise<unknown> }> {
  const task = e.tasks[0]!;
  const d = new RolloutDebugger({
    env: e,
    task,
    sandboxProvider: provider!,
    file: path.join(tmp("rlenv-fork-"), "r.jsonl"),
    runId: "debug",
    rolloutId: `${task.id}.s0`,
    policy,
    breakpoints: [bp(breakAt)],
  });
  t.after(() => d.stop());
  const paused = pausedAt(d);
  const done = d.start();
  await paused;
  return { d, done };
}

/** The scene snapshot the first observation of a trajectory carries. */
function firstScene(file: string): SceneSnapshot {
  const scene = ofType(events(file), "observation")[0]?.artifacts?.scene;
  assert.ok(scene, `${file} has a scene on its first observation`);
  return scene;
}

const node = (scene: SceneSnapshot, name: string) => scene.nodes.find((n) => n.name === name);

test("a fork (and a fork of the fork) of a scene rollout continues with the scene as it was at the pause", { skip }, async (t) => {
  const task = env.tasks[0]!;
  const { d, done } = await pausedRollout(
    t,
    env,
    plan(
      [["add_object", { name: "cube", kind: "box", position: [0, 0, 0.5] }]],
      // The second add fails (the name is taken) and changes nothing; the update moves the cube and paints it.
      [
        ["add_object", { name: "cube", kind: "sphere" }],
        ["update_object", { name: "cube", position: [1, 2, 0.5], color: "red" }],
      ],
      [["query_scene", {}]],
      [["submit", {}]],
    ),
    "query_scene",
  );

  const f1File = path.join(tmp("rlenv-fork-scene-"), "f1.jsonl");
  const f1 = await d.fork({
    policy: plan([["query_scene", {}]], [["add_object", { name: "lamp", kind: "cylinder", position: [3, 0, 1] }]], [["submit", {}]]),
    file: f1File,
    rolloutId: `${task.id}.s0.fork1`,
    breakpoints: [bp("submit")],
  });
  t.after(() => f1.stop());
  const f1Paused = pausedAt(f1);
  const f1Done = f1.start();
  await f1Paused;
  const s1 = firstScene(f1File);
  assert.deepEqual(node(s1, "cube")?.position, [1, 2, 0.5]);
  assert.equal(node(s1, "cube")?.kind, "box");
  assert.equal(node(s1, "cube")?.color, "#ff0000");
  assert.deepEqual(ofType(events(f1File), "message")[0]?.turn, 2, "turns 0 and 1 were taken before the fork");

  // Forked again from the fork: the steps it replayed and its own lamp both come along.
  const f2File = path.join(tmp("rlenv-fork-scene-"), "f2.jsonl");
  const f2 = await f1.fork({ policy: plan([["query_scene", {}]], [["submit", {}]]), file: f2File, rolloutId: `${task.id}.s0.fork2` });
  const r2 = await f2.start();
  assert.equal(r2.status, "completed", r2.reason);
  const s2 = firstScene(f2File);
  assert.deepEqual(node(s2, "cube")?.position, [1, 2, 0.5]);
  assert.deepEqual(node(s2, "lamp")?.position, [3, 0, 1]);
  assert.equal(d.state, "paused", "the original stays paused");

  await f1.stop();
  await d.stop();
  await Promise.all([done, f1Done]);
});

test("a fork whose scene cannot be rebuilt ends with the reason, before its first turn", { skip }, async () => {
  const task = env.tasks[0]!;
  const file = path.join(tmp("rlenv-fork-scene-"), "bad.jsonl");
  const resume = { messages: [], turn: 1, files: {}, from: { rollout_id: "x", file: "x.jsonl", turn: 1 } };
  const r = await runRollout({
    env,
    task,
    policy: plan([["submit", {}]]),
    sandboxProvider: provider!,
    file,
    runId: "r",
    rolloutId: "bad",
    resume: { ...resume, domain: { steps: [{ tool: "explode", args: {} }] } },
  });
  assert.equal(r.status, "error");
  assert.equal(r.reason, "the fork's scene step 1 calls 'explode', which this environment does not have");
  assert.equal(ofType(events(file), "message").length, 0, "no turn was taken");

  // A step that worked when it was noted and fails now: the scene would not be the forked one.
  const taken = {
    steps: [
      { tool: "add_object", args: { name: "a", kind: "box" } },
      { tool: "add_object", args: { name: "a", kind: "box" } },
    ],
  };
  const r2 = await runRollout({
    env,
    task,
    policy: plan([["submit", {}]]),
    sandboxProvider: provider!,
    file: path.join(tmp("rlenv-fork-scene-"), "bad2.jsonl"),
    runId: "r",
    rolloutId: "bad2",
    resume: { ...resume, domain: taken },
  });
  assert.match(r2.reason ?? "", /^rebuilding the forked scene: step 2 \(add_object\) failed this time: an object named 'a' already exists/);

  // A domain with no state to take back refuses a fork that carries some, rather than dropping it.
  const docs = load("document-contract-review");
  const r3 = await runRollout({
    env: docs,
    task: docs.tasks[0]!,
    policy: plan([["submit", {}]]),
    sandboxProvider: provider!,
    file: path.join(tmp("rlenv-fork-scene-"), "bad3.jsonl"),
    runId: "r",
    rolloutId: "bad3",
    resume: { ...resume, domain: { steps: [] } },
  });
  assert.equal(r3.reason, "the fork carries document state that the document domain cannot take back");
});

test("a fork of a code rollout diffs against the files as they were at the fork, not the seed", { skip }, async (t) => {
  const code = load("code-stdio");
  const task = code.tasks[0]!;
  const { d, done } = await pausedRollout(
    t,
    code,
    plan([["write_file", { path: "notes.txt", content: "one\n" }]], [["bash", { command: "cat notes.txt" }]], [["submit", {}]]),
    "bash",
  );
  const file = path.join(tmp("rlenv-fork-code-"), "f.jsonl");
  const f = await d.fork({
    policy: plan([["bash", { command: "true" }]], [["write_file", { path: "notes.txt", content: "two\n" }]], [["submit", {}]]),
    file,
    rolloutId: `${task.id}.s0.fork1`,
  });
  const r = await f.start();
  assert.equal(r.status, "completed", r.reason);
  const [bash, write] = ofType(events(file), "observation");
  assert.equal(bash?.artifacts?.diff, undefined, "the command after the fork changed nothing: no diff (not 'added notes.txt')");
  assert.deepEqual(
    write?.artifacts?.diff?.map((x) => [x.path, x.status, x.before, x.after]),
    [["notes.txt", "modified", "one\n", "two\n"]],
  );
  await d.stop();
  await done;
});

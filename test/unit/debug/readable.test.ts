import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_BLOCK_LINES, readableRollout } from "../../../src/core/debug/readable";
import type { TrajectoryEvent } from "../../../src/core/schema/trajectory";

let seq = 0;
const ev = (e: Record<string, unknown>) => ({ seq: seq++, t: seq, ...e }) as unknown as TrajectoryEvent;

const events: TrajectoryEvent[] = [
  ev({ type: "message", role: "system", content: "You are careful." }),
  ev({ type: "message", role: "user", content: "Fix stats.py" }),
  ev({ type: "message", role: "assistant", content: "Let me look.", turn: 1 }),
  ev({ type: "tool_call", id: "c1", name: "bash", arguments: { cmd: "cat stats.py", timeout: 5 }, turn: 1 }),
  ev({
    type: "observation",
    tool_call_id: "c1",
    name: "bash",
    output: "def mean(xs):\n  return 0\n",
    exit_code: 0,
    status: "ok",
    duration_ms: 12,
  }),
  ev({ type: "message", role: "assistant", content: "Now the fix.", turn: 2 }),
];
const lineOf = (text: string, n: number) => text.split("\n")[n - 1];

test("readable rollout: turns, assistant text, pretty-printed arguments, observations; the marker on the pending call", () => {
  const r = readableRollout({
    taskId: "stats-mean",
    events,
    pause: { point: "tool", turn: 2, description: "before write (turn 2)" },
    pending: { id: "c2", name: "write", arguments: '{"path":"stats.py","text":"x"}' },
  });
  assert.match(r.text, /^Rollout of task stats-mean · paused: before write \(turn 2\)/);
  assert.equal(lineOf(r.text, r.turnLines.get(1)!), "Turn 1");
  assert.equal(lineOf(r.text, r.turnLines.get(2)!), "Turn 2");
  assert.match(r.text, /assistant:\n {4}Let me look\./);
  assert.match(r.text, /▶ call bash\n {4}\{\n {6}"cmd": "cat stats\.py",\n {6}"timeout": 5\n {4}\}/, "arguments pretty-printed");
  assert.match(r.text, /◀ bash · ok · exit 0 · 12 ms\n {4}def mean\(xs\):\n {6}return 0\n/);
  assert.match(lineOf(r.text, r.nowLine)!, /^▶ call write .*paused here/, "the current line is the pending call, not an empty line");
  assert.match(r.text, /"path": "stats\.py"/, "a string of JSON arguments is pretty-printed too");
  assert.ok(!r.text.includes('{"type"'), "no raw JSONL");
});

test("readable rollout: a pending call already recorded is marked in place; after an observation, at the end, before the policy", () => {
  const withCall = [...events, ev({ type: "tool_call", id: "c2", name: "write", arguments: { path: "a" }, turn: 2 })];
  const r = readableRollout({
    taskId: "t",
    events: withCall,
    pause: { point: "tool", turn: 2, description: "x" },
    pending: { id: "c2", name: "write", arguments: { path: "a" } },
  });
  assert.match(lineOf(r.text, r.nowLine)!, /^▶ call write .*paused here/);
  assert.equal(r.text.match(/▶ call write/g)?.length, 1);
  const o = readableRollout({ taskId: "t", events, pause: { point: "observation", turn: 1, description: "x" } });
  assert.match(lineOf(o.text, o.nowLine)!, /^◀ bash · ok/);
  const reward = ev({ type: "reward", total: 0.5, components: [{ name: "hidden", type: "tests", weight: 1, score: 0.5, reason: "1/2" }] });
  const end = readableRollout({ taskId: "t", events: [...events, reward], pause: { point: "end", turn: 2, description: "x" } });
  assert.equal(lineOf(end.text, end.nowLine), "Reward 0.50");
  assert.match(end.text, /hidden \(tests, weight 1\): 0\.50 — 1\/2/);
  const p = readableRollout({ taskId: "t", events, pause: { point: "policy", turn: 3, description: "x" } });
  assert.match(lineOf(p.text, p.nowLine)!, /turn 3: waiting to ask the policy/);
});

test("readable rollout: a long output is cut with a count of what was left out", () => {
  const big = Array.from({ length: MAX_BLOCK_LINES + 25 }, (_, i) => `line ${i}`).join("\n");
  const r = readableRollout({
    taskId: "t",
    events: [
      ...events.slice(0, 4),
      ev({ type: "observation", tool_call_id: "c1", name: "bash", output: big, status: "ok", duration_ms: 1 }),
    ],
  });
  assert.match(r.text, /… \(25 more lines\)/);
  assert.ok(!r.text.includes(`line ${MAX_BLOCK_LINES}\n`));
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBreakpoint, taskBreakpoint } from "../../../src/core/debug/breakpoints";

const ok = (text: string, opts?: { condition?: string; hitCondition?: string }) => {
  const r = parseBreakpoint(text, opts);
  if (!r.ok) throw new Error(r.error);
  return r.breakpoint;
};
const bad = (text: string, opts?: { condition?: string; hitCondition?: string }) => {
  const r = parseBreakpoint(text, opts);
  assert.ok(!r.ok, `${text} should not parse`);
  return r.error;
};

test("breakpoint text: tools, observations, error, rewards", () => {
  assert.deepEqual(ok("bash").spec, { kind: "tool", tool: "bash" });
  assert.deepEqual(ok(" tool:put ").spec, { kind: "tool", tool: "put" });
  const obs = ok("observation:/Traceback/i").spec;
  assert.ok(obs.kind === "observation" && obs.pattern.test("traceback (most recent call last)"));
  const lit = ok("observation: a.b").spec;
  assert.ok(lit.kind === "observation" && lit.pattern.test("xa.by") && !lit.pattern.test("axb"), "plain text matches literally");
  assert.deepEqual(ok("error").spec, { kind: "error" });
  assert.deepEqual(ok("reward<0.5").spec, { kind: "reward", below: 0.5 });
  assert.deepEqual(ok("reward:hidden-check < 1").spec, { kind: "reward", component: "hidden-check", below: 1 });
  assert.deepEqual(taskBreakpoint("/e/tasks.jsonl", 3).ok, true);
});

test("bad breakpoint text is explained", () => {
  assert.match(bad(""), /empty breakpoint/);
  assert.match(bad("observation:/(/"), /bad observation pattern/);
  assert.match(bad("reward<high"), /needs a number/);
  assert.match(bad("reward>0.5"), /write reward<VALUE/);
  assert.match(bad("two words"), /not a tool name/);
  assert.match(bad("bash", { condition: "args.(" }), /bad condition/);
  assert.match(bad("bash", { hitCondition: "often" }), /bad hit count/);
  assert.ok(parseBreakpoint("bash", { condition: "turn > 1", hitCondition: ">=2" }).ok);
});

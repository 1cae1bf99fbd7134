import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluateExpression } from "../../../src/core/debug/expression";

const scope = {
  tool: "bash",
  args: { command: "ls", env: { A: 1 } },
  turn: 2,
  observation: "Traceback",
  reward: null,
  components: {},
  messages: [{ role: "user", content: "hi" }],
};

test("expressions read the debugger state and return plain data", () => {
  assert.deepEqual(evaluateExpression("args.env", scope), { ok: true, value: { A: 1 } });
  assert.deepEqual(evaluateExpression("tool === 'bash' && turn > 1", scope), { ok: true, value: true });
  assert.deepEqual(evaluateExpression("messages.map(m => m.role)", scope), { ok: true, value: ["user"] });
  assert.deepEqual(evaluateExpression("/Trace/.test(observation)", scope), { ok: true, value: true });
  // An object literal is an expression, not a block.
  assert.deepEqual(evaluateExpression("{ t: turn }", scope), { ok: true, value: { t: 2 } });
  assert.deepEqual(evaluateExpression("() => 1", scope), { ok: true, value: undefined });
});

test("expressions cannot change the state or reach the host", () => {
  const mine = structuredClone(scope);
  assert.deepEqual(evaluateExpression("(args.command = 'rm -rf /', args.command)", mine), { ok: true, value: "rm -rf /" });
  assert.equal(mine.args.command, "ls", "the expression ran on a copy");
  const r = evaluateExpression("process.exit(1)", scope);
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.error, /process is not defined/);
  assert.deepEqual(evaluateExpression("typeof require", scope), { ok: true, value: "undefined" });
});

test("bad expressions say why: syntax, unknown names, empty, runaway loops", () => {
  const syntax = evaluateExpression("args.", scope);
  assert.equal(syntax.ok, false);
  const unknown = evaluateExpression("nope", scope);
  assert.match(unknown.ok ? "" : unknown.error, /nope is not defined/);
  assert.deepEqual(evaluateExpression("  ", scope), { ok: false, error: "empty expression" });
  const loop = evaluateExpression("(() => { for (;;) {} })()", scope);
  assert.deepEqual(loop, { ok: false, error: "'(() => { for (;;) {} })()' ran past 100 ms" });
});

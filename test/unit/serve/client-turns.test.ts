import assert from "node:assert/strict";
import { test } from "node:test";
import type { PolicyReply } from "../../../src/core/policy/types";
import { ClientTurns } from "../../../src/core/serve/client-turns";

const reply = (content: string): PolicyReply => ({ content, tool_calls: [], latencyMs: 0 });

test("the loop's turn waits for the client's answer; an answer with no turn waiting is refused", async () => {
  const turns = new ClientTurns("test");
  assert.equal(turns.answer(reply("early")), false);
  const never = new Promise<void>(() => {});
  const ready = turns.waitForTurn(never);
  const asked = turns.next({ messages: [], tools: [], turn: 3, signal: new AbortController().signal });
  await ready;
  assert.equal(turns.waitingTurn, 3);
  assert.equal(turns.answer(reply("hello")), true);
  assert.equal((await asked).content, "hello");
  assert.equal(turns.waitingTurn, null);
});

test("the loop's signal ends a wait: the turn is cancelled, not answered", async () => {
  const turns = new ClientTurns("test");
  const c = new AbortController();
  const asked = turns.next({ messages: [], tools: [], turn: 0, signal: c.signal });
  c.abort(new Error("closed by the client"));
  await assert.rejects(asked, /closed by the client/);
  assert.equal(turns.answer(reply("late")), false);
});

test("waiting for a turn ends when the loop ends first", async () => {
  const turns = new ClientTurns("test");
  await turns.waitForTurn(Promise.resolve("ended"));
  await turns.waitForTurn(Promise.reject(new Error("disk")));
  assert.equal(turns.waitingTurn, null);
});

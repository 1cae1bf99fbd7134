import assert from "node:assert/strict";
import { test } from "node:test";
import { withDeadline } from "../../src/core/util/deadline";

test("withDeadline gives the work's value when it settles first", async () => {
  assert.deepEqual(await withDeadline(Promise.resolve(7), 60_000), { ok: true, value: 7 });
});

test("withDeadline rejects as the work does", async () => {
  await assert.rejects(withDeadline(Promise.reject(new Error("boom")), 60_000), /boom/);
});

test("withDeadline reports a timeout when the work never settles", async () => {
  const never = new Promise<number>(() => {});
  assert.deepEqual(await withDeadline(never, 1), { ok: false, why: "timeout" });
});

test("withDeadline ends at once when its signal aborts, before the deadline", async () => {
  const ac = new AbortController();
  const never = new Promise<number>(() => {});
  const r = withDeadline(never, 60_000, ac.signal);
  ac.abort();
  assert.deepEqual(await r, { ok: false, why: "aborted" });
  const already = await withDeadline(never, 60_000, ac.signal);
  assert.deepEqual(already, { ok: false, why: "aborted" });
});

test("withDeadline clears its timer and its abort listener once settled", async (t) => {
  const set = t.mock.method(globalThis, "setTimeout");
  const clear = t.mock.method(globalThis, "clearTimeout");
  const ac = new AbortController();
  const remove = t.mock.method(ac.signal, "removeEventListener");
  await withDeadline(Promise.resolve(1), 60_000, ac.signal);
  const timer = set.mock.calls[0]?.result;
  assert.ok(timer !== undefined);
  assert.ok(clear.mock.calls.some((c) => c.arguments[0] === timer));
  assert.equal(remove.mock.calls.length, 1);
});

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { AgentClient, ChannelTampered, SMALL_REPLY_CHARS } from "../../src/core/sandbox/agent/agent-client";

/**
 * The host side of the agent's reply channel (class 1): each request gets exactly one
 * well-formed reply; anything else on the channel was written from inside the sandbox and
 * breaks the client for good as a ChannelTampered, failing whatever still waits.
 */
function client(): { c: AgentClient; sent: string[] } {
  const input = new PassThrough();
  const sent: string[] = [];
  input.on("data", (d: Buffer) => sent.push(d.toString()));
  const c = new AgentClient(input);
  c.stdout(`${JSON.stringify({ id: 0, ready: true, pid: 1 })}\n`);
  return { c, sent };
}

const reply = (id: number, extra: object = {}) => `${JSON.stringify({ id, ok: true, ...extra })}\n`;

test("one reply per request is taken; the ready line once", async () => {
  const { c } = client();
  const a = c.request({ op: "ping" });
  const b = c.request({ op: "ping" });
  c.stdout(reply(2).slice(0, 5));
  c.stdout(reply(2).slice(5) + reply(1));
  assert.deepEqual(await a, { id: 1, ok: true });
  assert.deepEqual(await b, { id: 2, ok: true });
  assert.equal(c.tamper, null);
});

for (const [what, line, pattern] of [
  ["a second reply to a request", reply(1), /a second reply to request 1/],
  ["a reply to a request never asked", reply(7), /a reply to request 7, never asked/],
  ["a line that is not JSON", "exit 0\n", /not JSON/],
  ["JSON that is not a reply", "[1,2]\n", /not a reply/],
  ["a second ready line", `${JSON.stringify({ id: 0, ready: true, pid: 9 })}\n`, /a second ready line/],
] as const) {
  test(`${what} is tampering: what waits fails, and nothing is taken again`, async () => {
    const { c } = client();
    const first = c.request({ op: "ping" });
    c.stdout(reply(1));
    await first;
    const waiting = c.request({ op: "exec" });
    c.stdout(line);
    await assert.rejects(waiting, (e: Error) => e instanceof ChannelTampered && pattern.test(e.message));
    assert.match(c.tamper?.message ?? "", pattern);
    await assert.rejects(c.request({ op: "ping" }), ChannelTampered);
    c.stdout(reply(3)); // ignored: the client is broken for good
    assert.ok(c.broken instanceof ChannelTampered);
  });
}

test("a flood with no newline is cut at the longest reply a waiting request allows: host memory stays bounded", async () => {
  const { c } = client();
  const waiting = c.request({ op: "exec" }, undefined, 1000);
  const chunk = "x".repeat(64 * 1024);
  let fed = 0;
  while (!c.tamper && fed < 64 * SMALL_REPLY_CHARS) {
    c.stdout(chunk);
    fed += chunk.length;
  }
  assert.ok(c.tamper, "an endless line was taken");
  assert.ok(fed <= c.longestAllowed() + 2 * chunk.length, `took ${fed} characters before calling it tampering`);
  assert.match(c.tamper.message, /with no end/);
  await assert.rejects(waiting, ChannelTampered);
  c.stdout(chunk); // after the cut nothing is kept
});

test("a reply longer than its request allows is tampering; a large one it allows is taken", async () => {
  const { c } = client();
  const big = c.request({ op: "exec" }, undefined, 4 << 20);
  const payload = Buffer.alloc(4 << 20, 1).toString("base64");
  c.stdout(reply(1, { stdout: payload }));
  assert.equal((await big).stdout, payload);
  const small = c.request({ op: "ping" });
  c.stdout(reply(2, { stdout: payload }));
  await assert.rejects(small, /a line of \d+ characters|a reply of \d+ characters to request 2/);
});

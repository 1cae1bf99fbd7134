import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { AgentClient } from "../../src/core/sandbox/agent/agent-client";
import {
  answerWithin,
  INLINE_SEED_BYTES,
  pingAgent,
  resetFailure,
  resetRequest,
  SILENT,
  WIPED,
} from "../../src/core/sandbox/agent/probe-and-reset";

test("a reset of a used sandbox wipes the workdir and the shared folders with the seed in one request; a pristine one only writes", () => {
  const used = resetRequest("/workspace", { "a.py": "x", "sub/b.txt": Buffer.from("y") }, false);
  assert.equal(used.inline, true);
  assert.deepEqual(used.request, {
    op: "wipe",
    paths: ["/workspace", ...WIPED],
    files: { "/workspace/a.py": Buffer.from("x").toString("base64"), "/workspace/sub/b.txt": Buffer.from("y").toString("base64") },
  });
  assert.deepEqual(resetRequest("/workspace", { "a.py": "x" }, true).request, {
    op: "write",
    files: { "/workspace/a.py": Buffer.from("x").toString("base64") },
    mode: null,
  });
});

test("a seed larger than the inline limit is left out of the request, for the backend to write after it", () => {
  const big = resetRequest("/workspace", { "big.bin": Buffer.alloc(INLINE_SEED_BYTES + 1) }, false);
  assert.equal(big.inline, false);
  assert.deepEqual((big.request as { files: object }).files, {});
});

test("a seed path that leaves the workdir is refused, not written", () => {
  assert.throws(() => resetRequest("/workspace", { "../etc/passwd": "x" }, false));
});

test("a reset's reply: clean, an error, or what survived (five named, the rest counted)", () => {
  assert.equal(resetFailure({ id: 1, ok: true, left: [] }), null);
  assert.equal(resetFailure({ id: 1, error: "OSError: boom" }), "OSError: boom");
  const left = ["process 7", "/tmp/a", "/tmp/b", "/tmp/c", "/tmp/d", "/tmp/e", "/tmp/f"];
  assert.equal(resetFailure({ id: 1, ok: false, left }), "could not remove process 7, /tmp/a, /tmp/b, /tmp/c, /tmp/d and 2 more");
});

test("a liveness probe: an answer, silence past its time, or the broken connection's error", async () => {
  const input = new PassThrough();
  const agent = new AgentClient(input);
  const sent: Array<{ id: number; op: string }> = [];
  input.on("data", (d: Buffer) => {
    for (const line of d.toString().split("\n").filter(Boolean)) sent.push(JSON.parse(line));
  });
  const answered = pingAgent(agent, 60_000);
  await new Promise((r) => setImmediate(r));
  assert.equal(sent[0]?.op, "read");
  agent.stdout(`${JSON.stringify({ id: sent[0]?.id, files: {} })}\n`);
  assert.equal(await answered, null);
  const silence = await pingAgent(agent, 1);
  assert.match(silence?.message ?? "", /did not answer a liveness probe within 0.001 s/);
  assert.equal(await answerWithin(new Promise(() => {}), 1), SILENT);
  agent.ended("the sandbox's processes were killed from outside (SIGKILL)");
  await assert.rejects(pingAgent(agent, 60_000), /killed from outside/);
});

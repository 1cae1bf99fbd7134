import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { postJson } from "../../src/core/policy/http-post";

async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/completions`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test("postJson: sends the body and headers, reads any status with its text, over one kept-alive connection", async () => {
  const s = await serve((req, body, res) => {
    const status = JSON.parse(body).fail ? 400 : 200;
    res
      .writeHead(status, { "content-type": "application/json" })
      .end(JSON.stringify({ got: JSON.parse(body), auth: req.headers.authorization, type: req.headers["content-type"] }));
  });
  try {
    const signal = new AbortController().signal;
    const ok = await postJson(s.url, JSON.stringify({ prompt: [1, 2, 3], text: "é ✓" }), { authorization: "Bearer k" }, signal);
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.text), { got: { prompt: [1, 2, 3], text: "é ✓" }, auth: "Bearer k", type: "application/json" });
    const refused = await postJson(s.url, JSON.stringify({ fail: true }), {}, signal);
    assert.equal(refused.status, 400);
    assert.equal(s.connections(), 1);
    assert.equal(getEventListeners(signal, "abort").length, 0);
  } finally {
    s.close();
  }
});

test("postJson: a reply cut off mid-way and a refused connection reject; an abort rejects with the signal's reason", async () => {
  const s = await serve((req, _body, res) => {
    if (req.url?.includes("cut")) {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"choices":');
      setTimeout(() => res.socket?.destroy(), 20);
    }
    // Otherwise never answers.
  });
  try {
    await assert.rejects(postJson(s.url.replace("completions", "cut"), "{}", {}, new AbortController().signal));
    await assert.rejects(postJson("http://127.0.0.1:1/v1/completions", "{}", {}, new AbortController().signal), /ECONNREFUSED/);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("rollout cancelled")), 30);
    await assert.rejects(postJson(s.url, "{}", {}, ac.signal), /rollout cancelled/);
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);
  } finally {
    s.close();
  }
});

test("postJson: a reply slower than the idle timeout of kept connections (4 s) still arrives, as a long generation's does", async () => {
  const s = await serve((_req, _body, res) => setTimeout(() => res.writeHead(200).end("late"), 4_500));
  try {
    const r = await postJson(s.url, "{}", {}, new AbortController().signal);
    // The reply's headers come along too (a Retry-After is read from them).
    assert.deepEqual({ status: r.status, text: r.text }, { status: 200, text: "late" });
  } finally {
    s.close();
  }
});

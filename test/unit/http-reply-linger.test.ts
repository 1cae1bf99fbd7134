import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { test } from "node:test";
import { lingerThenClose, sendJson } from "../../src/core/remote/server/http-reply";

/** A refused upload's socket: the answer reaches the client, the rest is discarded up to a bound, then dropped. */
async function withServer(maxBytes: number, maxMs: number, fn: (port: number) => Promise<void>): Promise<void> {
  const server = http.createServer((req, res) => {
    sendJson(res, 413, { error: "too big" });
    lingerThenClose(req, maxBytes, maxMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    await fn((server.address() as net.AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Sends `total` bytes declared by Content-Length; resolves with what came back and whether the server closed. */
function upload(port: number, total: number): Promise<{ answer: string; closed: boolean; sent: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 1);
    socket.on("data", (d) => {
      answer += d.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      resolve({ answer, closed, sent });
    });
    socket.write(`POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
    const pump = () => {
      while (sent < total && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
      // The whole body went: the connection stays open (keep-alive) until we end it.
      setTimeout(() => {
        if (!closed) resolve({ answer, closed, sent });
        socket.destroy();
      }, 300);
    };
    pump();
  });
}

test("a body that ends within the bound is read to its end, and the client gets the 413", async () => {
  await withServer(8 * 1024 * 1024, 5_000, async (port) => {
    const r = await upload(port, 2 * 1024 * 1024);
    assert.match(r.answer, /^HTTP\/1\.1 413/);
    assert.match(r.answer, /too big/);
    assert.equal(r.closed, false, "the server kept the connection: the body ended in time");
  });
});

test("a body past the byte bound is cut off: the server drops the socket after reading about the bound", async () => {
  await withServer(1024 * 1024, 10_000, async (port) => {
    const r = await upload(port, 512 * 1024 * 1024);
    assert.equal(r.closed, true);
    assert.ok(r.sent < 64 * 1024 * 1024, `client sent ${r.sent} bytes before the server dropped it`);
  });
});

test("a client that stalls is dropped at the time bound", async () => {
  await withServer(64 * 1024 * 1024, 300, async (port) => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.on("close", () => resolve(true));
      socket.resume(); // a paused socket never reads the end, so never closes
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc");
      setTimeout(() => {
        resolve(false);
        socket.destroy();
      }, 5_000).unref();
    });
    assert.equal(closed, true);
  });
});

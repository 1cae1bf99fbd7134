import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { authorized, isLoopback } from "../../../src/core/serve/serve-auth";

const req = (remoteAddress: string, authorization?: string) =>
  ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;

test("loopback is 127.0.0.0/8, ::1, localhost and IPv4-mapped loopback; nothing else", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) assert.equal(isLoopback(h), true, h);
  for (const h of ["0.0.0.0", "10.0.0.1", "::", "::ffff:10.0.0.1", "128.0.0.1", "localhost.evil.com", "", undefined])
    assert.equal(isLoopback(h), false, String(h));
});

test("without a token only loopback peers are answered", () => {
  assert.equal(authorized(req("127.0.0.1"), undefined), true);
  assert.equal(authorized(req("192.168.1.5"), undefined), false);
});

test("with a token every peer needs the exact bearer token, loopback included", () => {
  assert.equal(authorized(req("127.0.0.1"), "s3cret"), false);
  assert.equal(authorized(req("10.0.0.9", "Bearer s3cret"), "s3cret"), true);
  assert.equal(authorized(req("10.0.0.9", "bearer s3cret"), "s3cret"), true);
  for (const h of ["Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer "])
    assert.equal(authorized(req("10.0.0.9", h), "s3cret"), false, h);
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { RunnerClient } from "../../src/core/remote/client/client";
import { startRunner } from "./remote-helpers";

/** The runner over HTTPS with a self-signed certificate: trusted through the client's CA option, refused without it. */
test("the runner serves HTTPS from cert/key files", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tls-"));
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  const runner = await startRunner(path.join(dir, "data"), ["--tls-cert", cert, "--tls-key", key]);
  try {
    assert.match(runner.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await new RunnerClient({ url: runner.url, token: runner.token, ca: cert }).health();
    assert.equal(health.ok, true);
    await assert.rejects(new RunnerClient({ url: runner.url, token: runner.token }).health(), /self.signed|certificate/i);
  } finally {
    await runner.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// `rlenv runner login NAME` and `rlenv runner add NAME URL --token` check the token against the
// runner before saving it: a real `rlenv runner serve` on loopback takes the right token and
// refuses a wrong one, and a closed port stands for a runner that is down. A failed check names
// the runner and its URL, exits 1 and leaves runners.yaml and the credentials file as they were;
// --no-verify stores the token unchecked, with a warning.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { RLENV, type StartedRunner, startRunner } from "./remote-helpers";

let work: string;
let runner: StartedRunner;
let closedUrl: string;
let env: NodeJS.ProcessEnv;

const credentials = () => path.join(work, "xdg", "rlenv", "credentials.json");
const runnersYaml = () => path.join(work, "xdg", "rlenv", "runners.yaml");
const storedTokens = (): Record<string, string> => (existsSync(credentials()) ? JSON.parse(readFileSync(credentials(), "utf8")) : {});
const runnersText = () => (existsSync(runnersYaml()) ? readFileSync(runnersYaml(), "utf8") : "");

/** The CLI with `input` on stdin (the token, as `rlenv runner token | rlenv runner login` pipes it). */
function rlenv(args: string[], input: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const [cmd, ...pre] = RLENV;
  return new Promise((resolve) => {
    const p = spawn(cmd!, [...pre, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (status) => resolve({ status, stdout, stderr }));
    p.stdin.end(input);
  });
}

/** A loopback port that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-login-verify-"));
  runner = await startRunner(path.join(work, "runner-data"));
  closedUrl = `http://127.0.0.1:${await closedPort()}`;
  env = { ...process.env, XDG_CONFIG_HOME: path.join(work, "xdg") };
  for (const k of Object.keys(env)) if (k.startsWith("RLENV_")) delete env[k];
});
after(async () => {
  await runner?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("runner login checks the token against the runner", () => {
  test("the right token: checked, stored, and the runner's version named", async () => {
    assert.equal((await rlenv(["runner", "add", "gpu1", runner.url], "")).status, 0);
    const r = await rlenv(["runner", "login", "gpu1"], `${runner.token}\n`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`runner gpu1 \\(${runner.url}\\) took the token \\(runner \\S+\\)`));
    assert.equal(storedTokens().gpu1, runner.token);
    assert.ok(!r.stderr.includes(runner.token) && !r.stdout.includes(runner.token), "the token is never printed");
  });

  test("a wrong token: refused naming the runner and URL, exit 1, the stored token untouched", async () => {
    const r = await rlenv(["runner", "login", "gpu1"], "not-the-token-0000\n");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`runner gpu1 \\(${runner.url}\\) refused the token \\(wrong token\\).*nothing was saved`));
    assert.equal(storedTokens().gpu1, runner.token, "the earlier, right token is still the stored one");
  });

  test("an unreachable runner: said so, exit 1, nothing saved; --no-verify saves with a warning", async () => {
    assert.equal((await rlenv(["runner", "add", "down", closedUrl], "")).status, 0);
    const r = await rlenv(["runner", "login", "down"], "some-token-1234\n");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`runner down \\(${closedUrl}\\) is unreachable \\(.*ECONNREFUSED.*--no-verify; nothing was saved`));
    assert.equal(storedTokens().down, undefined);
    const unchecked = await rlenv(["runner", "login", "down", "--no-verify"], "some-token-1234\n");
    assert.equal(unchecked.status, 0, unchecked.stderr);
    assert.match(unchecked.stderr, /warning: the token for runner down \(.*\) is stored unchecked \(--no-verify\)/);
    assert.equal(storedTokens().down, "some-token-1234");
  });

  test("an empty token is misuse (exit 2) before the runner is asked", async () => {
    const r = await rlenv(["runner", "login", "gpu1"], "\n");
    assert.equal(r.status, 2);
    assert.match(r.stderr, /the token is empty/);
  });
});

describe("runner add --token checks it the same way", () => {
  test("the right token: the runner and its token saved", async () => {
    const r = await rlenv(["runner", "add", "gpu2", runner.url, "--token"], `${runner.token}\n`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(runnersText(), /gpu2:\s+url: http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(storedTokens().gpu2, runner.token);
  });

  test("a wrong token or a closed port: exit 1, neither the runner nor a token saved", async () => {
    const wrong = await rlenv(["runner", "add", "gpu3", runner.url, "--token"], "wrong-token-5678\n");
    assert.equal(wrong.status, 1, wrong.stderr);
    assert.match(wrong.stderr, new RegExp(`runner gpu3 \\(${runner.url}\\) refused the token`));
    const down = await rlenv(["runner", "add", "gpu4", closedUrl, "--token-env", "GPU4_TOKEN"], "");
    // --token-env reads the variable: set it for this call only.
    assert.equal(down.status, 2, "an unset --token-env variable is misuse");
    env.GPU4_TOKEN = "env-token-9999";
    const down2 = await rlenv(["runner", "add", "gpu4", closedUrl, "--token-env", "GPU4_TOKEN"], "");
    delete env.GPU4_TOKEN;
    assert.equal(down2.status, 1, down2.stderr);
    assert.match(down2.stderr, new RegExp(`runner gpu4 \\(${closedUrl}\\) is unreachable`));
    assert.ok(!/gpu3|gpu4/.test(runnersText()), "runners.yaml has neither");
    assert.equal(storedTokens().gpu3, undefined);
    assert.equal(storedTokens().gpu4, undefined);
  });

  test("--no-verify adds a runner that is down now, token and all, with a warning", async () => {
    const r = await rlenv(["runner", "add", "gpu5", closedUrl, "--token", "--no-verify"], "later-token-42\n");
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /warning: the token for runner gpu5 .* stored unchecked/);
    assert.match(runnersText(), /gpu5:/);
    assert.equal(storedTokens().gpu5, "later-token-42");
  });
});

describe("an HTTPS runner with a self-signed certificate", () => {
  test("without --ca: its certificate is named untrusted, exit 1, nothing saved; with --ca: taken and saved", async () => {
    const dir = path.join(work, "tls");
    const cert = path.join(dir, "cert.pem");
    const key = path.join(dir, "key.pem");
    mkdirSync(dir, { recursive: true });
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ]),
      { stdio: "ignore" },
    );
    const tls = await startRunner(path.join(dir, "data"), ["--tls-cert", cert, "--tls-key", key]);
    try {
      const bare = await rlenv(["runner", "add", "tls1", tls.url, "--token"], `${tls.token}\n`);
      assert.equal(bare.status, 1, bare.stderr);
      assert.match(bare.stderr, new RegExp(`runner tls1 \\(${tls.url}\\): its certificate is not trusted .*--ca FILE; nothing was saved`));
      assert.ok(!runnersText().includes("tls1"));
      const withCa = await rlenv(["runner", "add", "tls1", tls.url, "--ca", cert, "--token"], `${tls.token}\n`);
      assert.equal(withCa.status, 0, withCa.stderr);
      assert.equal(storedTokens().tls1, tls.token);
    } finally {
      await tls.stop();
    }
  });
});

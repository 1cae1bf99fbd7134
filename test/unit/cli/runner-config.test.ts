// `rlenv runner add/login/list/remove`: runners in runners.yaml under the XDG config folder,
// tokens in a 0600 credentials file, read from stdin or an environment variable and never
// printed; `--runner NAME` on other commands resolves to that URL with that token.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { rlenvArgv } from "../../support/cli";

const TOKEN = "s3cret-Token-0123456789abcdef";
let work: string;
let env: NodeJS.ProcessEnv;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-runner-config-"));
  env = { ...process.env, XDG_CONFIG_HOME: path.join(work, "xdg") };
  for (const k of [
    "RLENV_CONFIG_DIR",
    "RLENV_RUNNERS",
    "RLENV_CREDENTIALS",
    "RLENV_RUNNER",
    "RLENV_RUNNER_TOKEN",
    "RLENV_RUNNER_TOKEN_GPU1",
  ])
    delete env[k];
});
after(() => rmSync(work, { recursive: true, force: true }));

const configDir = () => path.join(work, "xdg", "rlenv");

function rlenvSync(args: string[], input = "", extra: NodeJS.ProcessEnv = {}) {
  return spawnSync(...rlenvArgv(args), {
    input,
    encoding: "utf8",
    env: { ...env, ...extra },
    timeout: 120_000,
  });
}

/** Async, so the fake runner in this process can answer while the CLI waits on it. */
function rlenv(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(...rlenvArgv(args), {
      env: { ...env, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("rlenv runner add/login/list/remove", () => {
  test("add with a piped token: runners.yaml and a 0600 credentials file, the token never printed", () => {
    // Port 9 answers nothing: --no-verify stores the token unchecked (test/integration/runner-login-verify
    // checks tokens against a real runner).
    const r = rlenvSync(["runner", "add", "gpu1", "http://127.0.0.1:9", "--token", "--no-verify"], `${TOKEN}\n`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /stored unchecked \(--no-verify\)/);
    assert.ok(!r.stdout.includes(TOKEN) && !r.stderr.includes(TOKEN), "the token is not echoed");
    assert.match(readFileSync(path.join(configDir(), "runners.yaml"), "utf8"), /gpu1:\s+url: http:\/\/127\.0\.0\.1:9/);
    const creds = path.join(configDir(), "credentials.json");
    assert.equal(statSync(creds).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(creds, "utf8")).gpu1, TOKEN);
  });

  test("list names where each token comes from, not the token; add keeps the rest of runners.yaml", () => {
    const file = path.join(configDir(), "runners.yaml");
    writeFileSync(file, `# my runners\n${readFileSync(file, "utf8")}`);
    assert.equal(rlenvSync(["runner", "add", "gpu2", "https://gpu2:7800"]).status, 0);
    assert.match(readFileSync(file, "utf8"), /^# my runners/);
    const r = rlenvSync(["runner", "list", "--json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes(TOKEN));
    const rows = JSON.parse(r.stdout) as Array<{ name: string; url: string; token: string }>;
    assert.deepEqual(
      rows.map((x) => [x.name, x.url]),
      [
        ["gpu1", "http://127.0.0.1:9"],
        ["gpu2", "https://gpu2:7800"],
      ],
    );
    assert.match(rows[0]!.token, /credentials\.json$/);
    assert.match(rows[1]!.token, /^none/);
    const fromEnv = rlenvSync(["runner", "list", "--json"], "", { RLENV_RUNNER_TOKEN_GPU2: "x" });
    assert.equal((JSON.parse(fromEnv.stdout) as Array<{ token: string }>)[1]!.token, "$RLENV_RUNNER_TOKEN_GPU2");
  });

  test("bad input is refused: a bad URL, an unknown runner to log in to, an empty token", () => {
    assert.match(rlenvSync(["runner", "add", "x", "gpu:7800"]).stderr, /expected http\(s\):\/\/host:port/);
    assert.match(rlenvSync(["runner", "login", "nope"], "t\n").stderr, /no runner "nope"/);
    assert.match(rlenvSync(["runner", "login", "gpu2"], "\n").stderr, /the token is empty/);
    assert.match(rlenvSync(["runner", "login", "gpu2", "--token-env", "UNSET_VAR_X"]).stderr, /not set/);
  });

  test("login stores a token; --runner NAME on another command resolves the URL and sends that token", async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jobs: [] }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal(rlenvSync(["runner", "add", "gpu2", url]).status, 0);
      // This stand-in answers every route with a job list, which is not a runner's status: unchecked.
      const login = rlenvSync(["runner", "login", "gpu2", "--no-verify"], "fresh-token-42\n");
      assert.equal(login.status, 0, login.stderr);
      const r = await rlenv(["jobs", "--runner", "gpu2", "--json"]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(seen, ["GET /v1/jobs Bearer fresh-token-42"]);
      // Checked, the stand-in's answer to GET /v1/status is no runner's status: exit 1, the token kept.
      const checked = await rlenv(["runner", "login", "gpu2", "--token-env", "NEW_TOKEN"], { NEW_TOKEN: "other-token-7" });
      assert.equal(checked.status, 1, checked.stderr);
      assert.match(checked.stderr, /runner gpu2 \(http:\/\/127\.0\.0\.1:\d+\) is not an rlenv runner.*nothing was saved/);
      assert.equal(seen.at(-1), "GET /v1/status Bearer other-token-7");
      assert.equal(JSON.parse(readFileSync(path.join(configDir(), "credentials.json"), "utf8")).gpu2, "fresh-token-42");
    } finally {
      server.close();
    }
  });

  test("remove takes the runner and its token away", () => {
    assert.equal(rlenvSync(["runner", "remove", "gpu1"]).status, 0);
    assert.ok(!readFileSync(path.join(configDir(), "runners.yaml"), "utf8").includes("gpu1"));
    assert.equal(JSON.parse(readFileSync(path.join(configDir(), "credentials.json"), "utf8")).gpu1, undefined);
    assert.equal(rlenvSync(["runner", "remove", "gpu1"]).status, 2);
  });
});

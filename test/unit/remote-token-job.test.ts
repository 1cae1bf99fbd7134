import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { jobSpec } from "../../src/core/app/submit-job";
import { JobSpec } from "../../src/core/remote/api";
import { checkTokenizerFolder } from "../../src/core/remote/jobs/policy-server";
import { unitRequest } from "../../src/core/remote/executors/unit-request";
import { rlenv } from "../support/cli";

const base = { k: 1, concurrency: 2, sandbox: "process" as const, executor: "local" as const };

test("a token job's spec carries token-in/token-out, the runner-host tokenizer folder, the parser and the server's ready timeout", () => {
  const spec = jobSpec({
    ...base,
    policy: "openai",
    model: "Qwen/Qwen3-8B",
    tokens: true,
    tokenizer: "/models/qwen3-8b",
    toolParser: "hermes",
    policyServer: { command: "vllm serve Qwen/Qwen3-8B --port $PORT", port: 8123, readyTimeoutS: 900 },
  });
  const parsed = JobSpec.parse(spec);
  assert.deepEqual(parsed.config.policy, {
    kind: "openai",
    model: "Qwen/Qwen3-8B",
    tokens: true,
    tokenizer: "/models/qwen3-8b",
    tool_parser: "hermes",
  });
  assert.deepEqual(parsed.policy_server, { command: "vllm serve Qwen/Qwen3-8B --port $PORT", port: 8123, ready_timeout_s: 900 });
  // The ready timeout keeps its default when not given.
  const plain = JobSpec.parse(jobSpec({ ...base, policy: "openai", policyServer: { command: "x", port: 1 } }));
  assert.deepEqual(plain.policy_server, { command: "x", port: 1, ready_timeout_s: 600 });
});

test("each unit's rlenv run gets --tokens, --tokenizer and --tool-parser, and the started server's URL", () => {
  const config = JobSpec.parse(
    jobSpec({ ...base, policy: "openai", model: "m", tokens: true, tokenizer: "/models/m", toolParser: "qwen" }),
  ).config;
  const policy = unitRequest("/env", "/runs", config, {}, "http://127.0.0.1:8123/v1").config.policy;
  assert.ok(policy.tokens);
  assert.equal(policy.tokenizer, "/models/m");
  assert.equal(policy.tool_parser, "qwen");
  assert.equal(policy.base_url, "http://127.0.0.1:8123/v1");
  const chat = unitRequest("/env", "/runs", JobSpec.parse(jobSpec({ ...base, policy: "openai", model: "m" })).config, {}).config.policy;
  assert.ok(!chat.tokens && !chat.tokenizer);
});

test("the runner-host tokenizer check names the field and the missing file; chat jobs need none", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tok-check-"));
  assert.doesNotThrow(() => checkTokenizerFolder({ kind: "openai" }));
  assert.throws(() => checkTokenizerFolder({ kind: "openai", tokens: true }), /^Error: config\.policy\.tokenizer: token-in\/token-out/);
  assert.throws(() => checkTokenizerFolder({ kind: "openai", tokens: true, tokenizer: dir }), {
    message: `config.policy.tokenizer: ${dir} has no tokenizer.json on this runner host`,
  });
  writeFileSync(path.join(dir, "tokenizer.json"), "{}");
  assert.throws(() => checkTokenizerFolder({ kind: "openai", tokens: true, tokenizer: dir }), /has no tokenizer_config\.json/);
  writeFileSync(path.join(dir, "tokenizer_config.json"), "{}");
  assert.doesNotThrow(() => checkTokenizerFolder({ kind: "openai", tokens: true, tokenizer: dir }));
});

test("rlenv submit refuses token flags that do not go together before reaching any runner", () => {
  const env = mkdtempSync(path.join(tmpdir(), "rlenv-submit-flags-"));
  mkdirSync(env, { recursive: true });
  const runner = ["--runner", "http://127.0.0.1:9"];
  const cases: Array<[string[], RegExp]> = [
    [["--tokens"], /--tokens needs the model's tokenizer folder on the runner host: --tokenizer DIR/],
    [["--tokenizer", "/models/m"], /--tokenizer and --tool-parser go with --tokens/],
    [["--policy-ready-timeout", "60"], /--policy-ready-timeout goes with --policy-command/],
    [["--policy-command", "vllm serve m", "--policy-port", "http"], /--policy-port http: expected a whole number above 0/],
  ];
  for (const [flags, want] of cases) {
    const r = rlenv(["submit", env, ...runner, "--policy", "openai", ...flags], { env: { RLENV_RUNNER_TOKEN: "t" } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, want, flags.join(" "));
  }
});

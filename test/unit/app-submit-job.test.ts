import assert from "node:assert/strict";
import { test } from "node:test";
import { jobSpec } from "../../src/core/app/submit-job";
import { JobSpec } from "../../src/core/remote/api";

const base = { k: 2, concurrency: 3, sandbox: "docker" as const, executor: "local" as const };

test("a replay policy names its file; model and base URL go with openai; the spec parses", () => {
  const replay = jobSpec({ ...base, policy: "replay:runs/r1" });
  assert.deepEqual(replay.config.policy, { kind: "replay", replay: "runs/r1" });
  const openai = jobSpec({ ...base, policy: "openai", model: "m", baseUrl: "http://127.0.0.1:8000/v1", tasks: ["a"] });
  assert.deepEqual(openai.config, {
    policy: { kind: "openai", model: "m", base_url: "http://127.0.0.1:8000/v1" },
    tasks: ["a"],
    k: 2,
    concurrency: 3,
    sandbox: "docker",
  });
  assert.equal(openai.slurm, undefined);
  JobSpec.parse(openai);
});

test("slurm gets one shard and no GPU unless told; retries and a policy server pass through", () => {
  assert.deepEqual(jobSpec({ ...base, policy: "oracle", executor: "slurm" }).slurm, { shards: 1, gpus_per_shard: 0 });
  const s = jobSpec({
    ...base,
    policy: "oracle",
    executor: "slurm",
    slurm: { shards: 4, gpus: 1, partition: "gpu", retries: 0 },
    policyServer: { command: "vllm serve m --port $PORT", port: 8001 },
  });
  assert.deepEqual(s.slurm, { shards: 4, gpus_per_shard: 1, partition: "gpu", max_retries: 0 });
  assert.deepEqual(s.policy_server, { command: "vllm serve m --port $PORT", port: 8001 });
  assert.equal(JobSpec.parse(s).slurm?.max_retries, 0);
});

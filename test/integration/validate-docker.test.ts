/**
 * `rlenv validate --run` on docker starts its sandboxes while the static checks still run
 * (validate-run.ts, startEarly). When those checks fail, no rollout runs, and the containers
 * already started must go with the process.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Docker from "dockerode";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

test("validate --run: a static error stops before any rollout, and the sandboxes started meanwhile are removed", {
  skip: missing("docker") || missing("image"),
  timeout: 120_000,
}, async () => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": `name: early\ndomain: code\nsandbox:\n  image: ${image}\ntasks: t.jsonl\ntools: [bash, submit]\nreward:\n  - type: exact\n`,
    // One good task (so the environment loads and its sandboxes start), one without a prompt.
    "t.jsonl": '{"id":"a","prompt":"Say 1.","target":"1","solution":{"answer":"1"}}\n{"id":"b"}\n',
  });
  try {
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "."], { cwd: dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /t\.jsonl:2/);
    assert.doesNotMatch(r.stderr, /oracle/, "no rollout should have run");
    const left = await new Docker().listContainers({ all: true, filters: { label: [`rlenv.owner=${r.pid}`] } });
    assert.deepEqual(
      left.map((c) => c.Names[0]),
      [],
      "containers started for the run outlived the CLI",
    );
  } finally {
    cleanup();
  }
});

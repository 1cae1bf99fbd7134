import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import Docker from "dockerode";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { buildBaseImage, imageRecipeHash } from "../../src/core/sandbox/image/build-base";
import { buildEnvironmentImage } from "../../src/core/sandbox/image/build-env";
import { listRecipes } from "../../src/core/sandbox/image/recipe";
import { sandboxRequest } from "../../src/core/sandbox/request";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";
import { rlenvArgv } from "../support/cli";

const docker = new Docker();
const skip = missing("docker") || missing("image");

test("the python base image carries its recipe hash, so a second build is a no-op", { skip }, async () => {
  const recipe = listRecipes().find((r) => r.name === "python");
  assert.ok(recipe);
  assert.equal(await imageRecipeHash(docker, recipe.tag), recipe.hash);
  const r = await buildBaseImage(docker, recipe);
  assert.deepEqual(r, { tag: "rlenv/python:bookworm", built: false });
});

test("an environment's sandbox/Dockerfile is built on the local base, once, and its sandbox runs it", { skip }, async (t) => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml":
      "name: built-demo\ndomain: code\ntasks: tasks.jsonl\nreward:\n  - type: exact\nsandbox:\n  build: sandbox/Dockerfile\n",
    "tasks.jsonl": `{"id": "t1", "prompt": "p", "nonce": "${Date.now()}"}\n`,
    "sandbox/Dockerfile":
      "FROM rlenv/python:bookworm\nCOPY tool.py /opt/tool.py\nRUN python3 -c 'import pytest' && echo built > /opt/marker\n",
    "sandbox/tool.py": "print('tool ran')\n",
  });
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const req = sandboxRequest(env);
  t.after(async () => {
    cleanup();
    await docker
      .getImage(req.image ?? "")
      .remove({ force: true })
      .catch(() => {});
  });
  const first = await buildEnvironmentImage(docker, env);
  assert.equal(first.built, true);
  assert.equal(first.tag, req.image);
  assert.equal((await buildEnvironmentImage(docker, env)).built, false);
  const provider = await DockerSandboxProvider.create({ docker, warm: 0 });
  try {
    const s = await provider.acquire(req);
    const r = await s.exec("cat /opt/marker && python3 /opt/tool.py");
    assert.equal(r.stdout, "built\ntool ran\n", r.stderr);
    await s.close();
  } finally {
    await provider.shutdown();
  }
});

test("`rlenv image build python` reports the image up to date, and an unknown name clearly", { skip }, () => {
  const cli = (args: string[]) =>
    spawnSync(...rlenvArgv(["image", "build", ...args]), {
      encoding: "utf8",
      cwd: path.join(__dirname, "../.."),
    });
  const ok = cli(["python"]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, "rlenv/python:bookworm up to date\n");
  const bad = cli(["no-such-image"]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /"no-such-image" is neither a recipe \(.*python.*\)/);
});

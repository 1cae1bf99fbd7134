// An environment whose sandbox carries data in its image (a Dockerfile): its image is built when
// missing (or, under --no-build, the command that builds it is named), a task edit needs no
// rebuild, and the process backend — which cannot give that data — is never taken silently.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import Docker from "dockerode";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { packFiles } from "../../src/core/sandbox/docker/tar";
import { environmentImageState } from "../../src/core/sandbox/image/build-env";
import { ensureEnvironmentImage } from "../../src/core/sandbox/image/ensure";
import { detectIsolation } from "../../src/core/sandbox/process/isolation";
import { builtImageTag } from "../../src/core/sandbox/request";
import { missing } from "../support/services";
import { makeEnvDir } from "../support/tmp-env";
import { tmp } from "./rollout-helpers";
import { rlenvArgv } from "../support/cli";

const ROOT = path.join(__dirname, "../..");

function bakedEnv(): { dir: string; cleanup: () => void; nonce: string } {
  // A fresh nonce in the context: a new image tag, so the first run must build it.
  const nonce = randomBytes(6).toString("hex");
  const env = makeEnvDir({
    "environment.yaml": [
      "name: baked-data",
      "domain: custom",
      "tasks: tasks.jsonl",
      "tools: [bash, submit]",
      "sandbox:",
      "  build: sandbox/Dockerfile",
      "reward:",
      "  - type: tests",
      `    command: "grep -q 'rows: 3' /opt/shop.txt && grep -q ok answer.txt"`,
      "",
    ].join("\n"),
    "tasks.jsonl": `${JSON.stringify({ id: "count", prompt: "p", solution: { commands: ["echo ok > answer.txt"] }, metadata: { v: 1 } })}\n`,
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\nCOPY shop.txt /opt/shop.txt\n",
    "sandbox/shop.txt": `rows: 3\nnonce: ${nonce}\n`,
  });
  return { ...env, nonce };
}

function rlenv(args: string[], env: Record<string, string> = {}) {
  return spawnSync(...rlenvArgv(args), {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
}

const runArgs = (dir: string, backend: string, ...more: string[]) => [
  "run",
  dir,
  "--policy",
  "oracle",
  "--sandbox",
  backend,
  "--runs",
  tmp("rlenv-img-runs-"),
  "--json",
  ...more,
];
const reward = (stdout: string) => (JSON.parse(stdout) as { summary: { mean_reward: number | null } }).summary.mean_reward;

test("docker: a missing built image is built with progress (or named under --no-build), and a task edit reuses it", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const docker = new Docker();
  const env = bakedEnv();
  const { env: loaded } = loadEnvironment(env.dir);
  assert.ok(loaded);
  const tag = builtImageTag(loaded);
  t.after(async () => {
    env.cleanup();
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => {});
  });

  const refused = rlenv(runArgs(env.dir, "docker", "--no-build"));
  assert.notEqual(refused.status, 0);
  assert.match(
    refused.stderr,
    new RegExp(`${tag.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} .*is not built yet; build it with: rlenv image build \\S+`),
  );
  assert.doesNotMatch(refused.stderr, /No such image/);

  const built = rlenv(runArgs(env.dir, "docker"));
  assert.equal(built.status, 0, built.stderr);
  assert.match(built.stderr, /building it \(rlenv image build .*\)/);
  assert.match(built.stderr, /COPY shop\.txt/, "the build's own progress reaches stderr");
  assert.equal(reward(built.stdout), 1);

  // A task's metadata edited: same image, so --no-build runs.
  writeFileSync(
    path.join(env.dir, "tasks.jsonl"),
    `${JSON.stringify({ id: "count", prompt: "p edited", solution: { commands: ["echo ok > answer.txt"] }, metadata: { v: 2 } })}\n`,
  );
  const again = rlenv(runArgs(env.dir, "docker", "--no-build"));
  assert.equal(again.status, 0, again.stderr);
  assert.equal(reward(again.stdout), 1);

  // auto takes Docker for it: only Docker has the baked data.
  const auto = rlenv(runArgs(env.dir, "auto"));
  assert.equal(auto.status, 0, auto.stderr);
  assert.equal(reward(auto.stdout), 1);
});

test("--sandbox process on an environment built from a Dockerfile warns once, naming what will differ", {
  skip: detectIsolation() ? false : "neither bubblewrap nor unshare can isolate processes here",
}, (t) => {
  const env = bakedEnv();
  t.after(env.cleanup);
  const r = rlenv(runArgs(env.dir, "process", "-k", "3"));
  const warnings = r.stderr.split("\n").filter((l) => l.includes("sandbox process: baked-data:"));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(warnings[0] ?? "", /built from sandbox\/Dockerfile.*exists only in the image.*this host's programs and files instead/);
  // And it does differ: the baked file is not on the host.
  assert.equal(reward(r.stdout), 0);
});

test("--sandbox auto without Docker refuses an environment only Docker can serve, saying why", (t) => {
  const env = bakedEnv();
  t.after(env.cleanup);
  const r = rlenv(runArgs(env.dir, "auto"), { DOCKER_HOST: `unix://${path.join(tmp("rlenv-nodocker-"), "none.sock")}` });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /sandbox auto: baked-data needs Docker: its sandbox is built from sandbox\/Dockerfile.*Docker does not answer/);
});

test("docker: an image built on a base that has changed since is stale: --no-build says so, a run builds it again under the same tag", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const docker = new Docker();
  const version = randomBytes(4).toString("hex");
  const base = `rlenv-test/base:${version}`;
  await docker.getImage("rlenv/python:bookworm").tag({ repo: "rlenv-test/base", tag: version });
  const env = makeEnvDir({
    "environment.yaml":
      "name: on-base\ndomain: custom\ntasks: tasks.jsonl\ntools: [bash, submit]\nsandbox:\n  build: sandbox/Dockerfile\nreward:\n  - type: exact\n",
    "tasks.jsonl": `${JSON.stringify({ id: "a", prompt: "p" })}\n`,
    "sandbox/Dockerfile": `FROM ${base}\nRUN true\n`,
  });
  const { env: loaded } = loadEnvironment(env.dir);
  assert.ok(loaded);
  const image = builtImageTag(loaded);
  t.after(async () => {
    env.cleanup();
    for (const i of [image, base])
      await docker
        .getImage(i)
        .remove({ force: true })
        .catch(() => {});
  });
  assert.equal(await environmentImageState(docker, loaded), "missing");
  assert.equal((await ensureEnvironmentImage(docker, loaded)).built, true);
  assert.equal(await environmentImageState(docker, loaded), "current");

  // The base image is replaced by another one under the same name.
  const archive = await packFiles(new Map([["Dockerfile", Buffer.from("FROM rlenv/python:bookworm\nRUN touch /tmp/v2\n")]]), {
    uid: 0,
    gid: 0,
  });
  const stream = (await docker.buildImage(archive as unknown as NodeJS.ReadableStream, {
    t: base,
    networkmode: "none",
    rm: true,
  })) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
  assert.equal(await environmentImageState(docker, loaded), "stale");
  await assert.rejects(
    ensureEnvironmentImage(docker, loaded, { build: false }),
    /was built on a base image that has changed since; build it with: rlenv image build /,
  );
  assert.equal((await ensureEnvironmentImage(docker, loaded)).built, true);
  assert.equal(await environmentImageState(docker, loaded), "current");
  assert.equal(builtImageTag(loadEnvironment(env.dir).env ?? loaded), image, "same tag: the content did not change");
});

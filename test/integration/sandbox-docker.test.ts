import assert from "node:assert/strict";
import { test } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { missing } from "../support/services";
import { request, sandboxContract } from "./sandbox-contract";

const docker = new Docker();
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

sandboxContract({
  name: "docker",
  skip: missing("docker") || missing("image"),
  image,
  make: () => DockerSandboxProvider.create({ docker, warm: 2 }),
  leftovers: async (pid) => {
    const list = await docker.listContainers({ all: true, filters: { label: [`rlenv.owner=${pid}`] } });
    return list.map((c) => c.Id);
  },
});

test("with reuse, a closed sandbox is restored into the pool: same container, empty workdir, no processes, old handle dead", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const provider = await DockerSandboxProvider.create({ docker, warm: 1 });
  t.after(() => provider.shutdown());
  const req = { ...request({}, image), reuse: true, labels: { "rlenv.run": "reuse-test", "rlenv.rollout": "r1" } };
  const first = await provider.acquire(req);
  const cold = await docker.getContainer(first.id).inspect();
  assert.equal(cold.Config.Labels["rlenv.rollout"], "r1", "a cold start carries the rollout label");
  assert.equal(cold.HostConfig.NetworkMode, "none");
  assert.deepEqual(cold.HostConfig.CapDrop, ["ALL"]);
  assert.equal(cold.HostConfig.ReadonlyRootfs, true);
  assert.deepEqual(cold.HostConfig.SecurityOpt, ["no-new-privileges"]);
  assert.equal(cold.HostConfig.MemorySwap, cold.HostConfig.Memory);
  await provider.prewarm(req); // returns at once: the reusable sandbox out on loan counts towards the pool's one
  await first.reset({ "seed.txt": "s" });
  await first.exec("echo junk > junk.txt; echo t > /tmp/t; (sleep 600 &)");
  await first.close();
  assert.equal((await first.exec("true")).status, "error", "a released handle must not run commands");
  const again = await provider.acquire({ ...req, labels: { ...req.labels, "rlenv.rollout": "r2" } });
  assert.equal(again.id, first.id, "the recycled container is handed out first");
  const r = await again.exec("ls -A . /tmp; ps -eo comm | grep -c '^sleep' || true");
  assert.equal(r.stdout.trim(), ".:\n\n/tmp:\n0");
  assert.deepEqual(await again.diff(), []);
  await again.close();
  await provider.shutdown();
  const list = await docker.listContainers({ all: true, filters: { label: [`rlenv.owner=${process.pid}`, "rlenv.run=reuse-test"] } });
  assert.deepEqual(list, [], "shutdown removes warm and recycled containers");
});

test("a recycled container left idle in the pool is wiped there: what its last holder left running stops", {
  skip: missing("docker") || missing("image"),
}, async (t) => {
  const provider = await DockerSandboxProvider.create({ docker, warm: 1 });
  t.after(() => provider.shutdown());
  const req = { ...request({}, image), reuse: true };
  const first = await provider.acquire(req);
  await first.reset({});
  await first.exec("(setsid sleep 600 > /dev/null 2>&1 &); echo left > left.txt");
  await first.close();
  // Seen from outside the agent: a docker exec of our own.
  const sleeping = async () => {
    const exec = await docker
      .getContainer(first.id)
      .exec({ Cmd: ["sh", "-c", "ps -eo comm | grep -c '^sleep' || true"], AttachStdout: true, AttachStderr: true, User: "1000:1000" });
    const stream = await exec.start({ hijack: true, stdin: false });
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    await new Promise((r) => stream.on("end", r));
    // Multiplexed frames: the payload follows each 8-byte header.
    return Buffer.concat(chunks).subarray(8).toString().trim();
  };
  assert.equal(await sleeping(), "1", "released as it was left (the wipe waits for the next use or the idle time)");
  const until = Date.now() + 10_000;
  while ((await sleeping()) !== "0" && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await sleeping(), "0", "the idle wipe did not stop the process");
  const again = await provider.acquire(req);
  assert.equal(again.id, first.id);
  await again.reset({ "seed.txt": "s" });
  assert.equal((await again.exec("ls -A")).stdout, "seed.txt\n");
  await again.close();
});

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

test("with reuse, a closed sandbox is restored into the pool: same container, empty workdir, no processes, old handle dead", { skip: missing("docker") || missing("image") }, async (t) => {
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

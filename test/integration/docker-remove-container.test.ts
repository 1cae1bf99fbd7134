import assert from "node:assert/strict";
import { test } from "node:test";
import Docker from "dockerode";
import { removeContainer } from "../../src/core/sandbox/docker/remove-container";
import { missing } from "../support/services";

const docker = new Docker();
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

/**
 * A container the engine is removing already (an agent's exit starts an auto-removal) answers
 * a second remove with 409 at once: removeContainer must still return only once it is gone,
 * or a shutdown that returned leaves it listed as "Removal In Progress".
 */
test("removeContainer returns once the container is gone, also while another removal of it is in progress", {
  skip: missing("docker") || missing("image"),
}, async () => {
  for (let i = 0; i < 5; i++) {
    const c = await docker.createContainer({
      Image: image,
      Cmd: ["sleep", "600"],
      Labels: { "rlenv.test": "remove-container" },
      HostConfig: { NetworkMode: "none" },
    });
    await c.start();
    // The first removal (a running container: killed, then removed) is under way when the second asks.
    const first = c.remove({ force: true, v: true }).catch(() => {});
    await new Promise((r) => setTimeout(r, i * 10));
    await removeContainer(c);
    await assert.rejects(
      c.inspect(),
      (e: { statusCode?: number }) => e.statusCode === 404,
      `round ${i}: still there after removeContainer`,
    );
    await first;
  }
  // Gone already: nothing to do, no error.
  const gone = docker.getContainer("rlenv-no-such-container");
  await removeContainer(gone);
});

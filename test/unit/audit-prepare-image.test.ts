// The audit readies each Docker backend for an environment before its rollouts, through the same
// prepareEnvironment as `rlenv run`: a missing image is built first, or the audit stops naming it,
// instead of every rollout failing one by one. No engine is needed: the Docker answers are faked.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type Docker from "dockerode";
import { prepareAuditProviders } from "../../src/core/audit/audit-folder";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";

const MISSING = "rlenv-test/no-such-image:never";

/** An engine without any image: every inspect answers 404. */
function engineWithoutImages(asked: string[]): Docker {
  return {
    getImage: (tag: string) => ({
      inspect: async () => {
        asked.push(tag);
        throw Object.assign(new Error("no such image"), { statusCode: 404 });
      },
    }),
  } as unknown as Docker;
}

function environmentOn(image: string) {
  const loaded = loadEnvironment(path.join(import.meta.dirname, "..", "..", "environments", "code-stdio")).env;
  assert.ok(loaded);
  const { build: _build, ...sandbox } = loaded.manifest.sandbox;
  return { ...loaded, manifest: { ...loaded.manifest, sandbox: { ...sandbox, image } } };
}

test("audit: a Docker backend's missing image is looked for before any rollout, and one rlenv cannot build is named", async () => {
  const asked: string[] = [];
  const docker = Object.create(DockerSandboxProvider.prototype) as DockerSandboxProvider;
  Object.assign(docker, { docker: engineWithoutImages(asked) });
  // The process backend needs nothing prepared: any use of this stand-in would throw.
  const untouched = new Proxy({}, { get: () => assert.fail("the process backend was asked something") }) as SandboxProvider;
  await assert.rejects(
    prepareAuditProviders(environmentOn(MISSING), [
      { backend: "docker", provider: docker },
      { backend: "process", provider: untouched },
    ]),
    (e: Error) => e.name === "MissingImageError" && e.message.includes(MISSING),
  );
  assert.deepEqual(asked, [MISSING]);
});

test("audit: with only the process backend, nothing is prepared", async () => {
  const untouched = new Proxy({}, { get: () => assert.fail("the process backend was asked something") }) as SandboxProvider;
  await prepareAuditProviders(environmentOn(MISSING), [{ backend: "process", provider: untouched }]);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { diffFiles, seedMap } from "../../src/core/sandbox/diff";
import { OutputCollector } from "../../src/core/sandbox/output";
import { resolveSandboxPath } from "../../src/core/sandbox/paths";
import { builtImageTag, sandboxRequest } from "../../src/core/sandbox/request";
import { parseSize } from "../../src/core/sandbox/size";
import { makeEnvDir } from "../support/tmp-env";

test("parseSize reads the manifest's size strings in binary units", () => {
  assert.equal(parseSize("512m"), 512 * 1024 ** 2);
  assert.equal(parseSize("2g"), 2 * 1024 ** 3);
  assert.equal(parseSize("1.5GiB"), 1.5 * 1024 ** 3);
  assert.equal(parseSize("64 KB"), 64 * 1024);
  assert.equal(parseSize("4096"), 4096);
  assert.throws(() => parseSize("lots"), /not a size: "lots"/);
});

const MANIFEST = (sandbox: string) => `name: demo
domain: code
tasks: tasks.jsonl
reward:
  - type: exact
sandbox:
${sandbox}
`;

test("sandboxRequest maps the manifest's sandbox spec to bytes, image and labels", (t) => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": MANIFEST(
      "  image: rlenv/python:bookworm\n  workdir: /work\n  limits: {cpus: 2, memory: 512m, pids: 100, tmpfs: 64m, output: 5000, file_size: 2m}",
    ),
    "tasks.jsonl": '{"id": "t1", "prompt": "p"}\n',
  });
  t.after(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const req = sandboxRequest(env, { "rlenv.run": "r1" });
  assert.deepEqual(req, {
    image: "rlenv/python:bookworm",
    workdir: "/work",
    user: "1000:1000",
    limits: {
      cpus: 2,
      memoryBytes: 512 << 20,
      pids: 100,
      outputBytes: 5000,
      tmpfsBytes: 64 << 20,
      fileBytes: 2 << 20,
      diskBytes: 2 * 1024 ** 3,
    },
    labels: { "rlenv.run": "r1" },
    reuse: true,
  });
});

test("sandboxRequest names the environment's own built image for a sandbox with build:", (t) => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": MANIFEST("  build: sandbox/Dockerfile\n  reset: recreate"),
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\n",
    "tasks.jsonl": '{"id": "t1", "prompt": "p"}\n',
  });
  t.after(cleanup);
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  const req = sandboxRequest(env);
  assert.equal(req.image, builtImageTag(env));
  assert.match(req.image ?? "", /^rlenv\/env-demo:[0-9a-f]{12}$/);
  assert.equal(req.limits.memoryBytes, 1024 ** 3);
  assert.equal(req.reuse, false, "reset: recreate never hands a used container to another rollout");
});

test("OutputCollector keeps the first bytes of both streams, counts all and marks the cut", () => {
  const c = new OutputCollector(10);
  c.push("stdout", Buffer.from("12345"));
  c.push("stderr", Buffer.from("abc"));
  c.push("stdout", Buffer.from("6789"));
  const r = c.result();
  assert.equal(r.stderr, "abc");
  assert.match(r.stdout, /^1234567\n\[output truncated: kept 10 of 12 bytes\]/);
  assert.deepEqual(r.truncated, { originalBytes: 12 });
  const small = new OutputCollector(100);
  small.push("stdout", Buffer.from("ok"));
  assert.deepEqual(small.result(), { stdout: "ok", stderr: "" });
});

test("diffFiles lists added, modified and deleted files; binary content is flagged, not inlined", () => {
  const seed = seedMap({ "a.txt": "1\n", "b.txt": "same", "c.bin": Buffer.from([0, 1]), "d.txt": "x" });
  const now = new Map([
    ["a.txt", Buffer.from("2\n")],
    ["b.txt", Buffer.from("same")],
    ["c.bin", Buffer.from([0, 2])],
    ["e.txt", Buffer.from("new")],
  ]);
  assert.deepEqual(diffFiles(seed, now), [
    { path: "a.txt", status: "modified", before: "1\n", after: "2\n" },
    { path: "c.bin", status: "modified", before: null, after: null, binary: true },
    { path: "d.txt", status: "deleted", before: "x", after: null },
    { path: "e.txt", status: "added", before: null, after: "new" },
  ]);
});

test("resolveSandboxPath keeps paths inside the workdir or /tmp", () => {
  assert.equal(resolveSandboxPath("/workspace", "src/a.py"), "/workspace/src/a.py");
  assert.equal(resolveSandboxPath("/workspace", "/tmp/x"), "/tmp/x");
  assert.throws(() => resolveSandboxPath("/workspace", "../etc/passwd"), /outside the sandbox workdir/);
  assert.throws(() => resolveSandboxPath("/workspace", "/workspace2/x"), /outside/);
});

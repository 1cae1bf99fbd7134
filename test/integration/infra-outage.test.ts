import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, test } from "node:test";
import Docker from "dockerode";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { RolloutHooks } from "../../src/core/rollout/rollout-types";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { missing } from "../support/services";
import { FIXTURE, tmp } from "./rollout-helpers";

/**
 * A Docker engine that stops answering for a while (a dockerd restart) fails every rollout in flight.
 * The outage is made without touching the shared daemon: the provider talks to Docker through a unix
 * socket proxy this test owns, and taking the proxy down drops every connection (the sandboxes' exec
 * streams included) and refuses new ones, as a stopped daemon does. RLENV_TEST_OUTAGE_S sets its length.
 */
const skip = missing("docker") || missing("image");
const OUTAGE_S = Number(process.env.RLENV_TEST_OUTAGE_S ?? 20);
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";
const DOCKER_SOCKET = process.env.DOCKER_HOST?.replace(/^unix:\/\//, "") ?? "/var/run/docker.sock";

/** A loopback unix-socket proxy to the Docker socket that can be taken down and brought back. */
class DockerProxy {
  readonly socketPath = path.join(tmp("rlenv-outage-"), "docker.sock");
  private readonly open = new Set<net.Socket>();
  private server: net.Server | null = null;

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(DOCKER_SOCKET);
      for (const s of [client, upstream]) {
        this.open.add(s);
        s.on("close", () => this.open.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.socketPath, resolve));
    this.server = server;
  }

  /** Closes the socket (new connections fail: ENOENT) and drops every connection through it. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const s of this.open) s.destroy();
    await closed;
  }
}

function napEnv(tasks: number) {
  const dir = tmp("rlenv-outage-env-");
  const manifest = readFileSync(path.join(FIXTURE, "environment.yaml"), "utf8").replace(
    "  workdir: /workspace",
    `  image: ${image}\n  workdir: /workspace`,
  );
  writeFileSync(path.join(dir, "environment.yaml"), manifest);
  const check = { "tests_hidden/check.py": "import sys\nsys.exit(0 if open('greet.txt').read().strip() == 'hello world' else 1)\n" };
  const task = (id: string) => ({
    id,
    prompt: "Make greet.txt say 'hello world', then submit 42.",
    files: { "greet.txt": "hello\n" },
    tests: { files: check },
    target: "42",
    solution: {
      tool_calls: [
        { name: "slow", arguments: { seconds: 2 } },
        { name: "put", arguments: { path: "greet.txt", text: "hello world\n" } },
      ],
      answer: "42",
    },
  });
  const ids = Array.from({ length: tasks }, (_, i) => `t${i}`);
  writeFileSync(path.join(dir, "tasks.jsonl"), `${ids.map((id) => JSON.stringify(task(id))).join("\n")}\n`);
  const { env, problems } = loadEnvironment(dir);
  if (!env) throw new Error(JSON.stringify(problems));
  return env;
}

/** Takes the proxy down for `seconds` once the first slow call is under way; resolves when it is back. */
function outageDuringFirstCall(proxy: DockerProxy, seconds: number): { hooks: RolloutHooks; over: Promise<void> } {
  let fired = false;
  let back!: () => void;
  const over = new Promise<void>((r) => {
    back = r;
  });
  const hooks: RolloutHooks = {
    async beforeToolCall(call) {
      if (call.name === "slow" && !fired) {
        fired = true;
        setTimeout(() => {
          void proxy.down().then(() => setTimeout(() => void proxy.up().then(back), seconds * 1000));
        }, 500);
      }
      return call;
    },
  };
  return { hooks, over };
}

const providers: DockerSandboxProvider[] = [];
const proxies: DockerProxy[] = [];
after(async () => {
  for (const p of providers) await p.shutdown().catch(() => {});
  for (const p of proxies) await p.down();
});

test(`a run rides through a ${OUTAGE_S} s Docker outage: every rollout scored as in a clean run, none an infrastructure error`, {
  skip,
}, async () => {
  const proxy = new DockerProxy();
  proxies.push(proxy);
  await proxy.up();
  const provider = await DockerSandboxProvider.create({ docker: new Docker({ socketPath: proxy.socketPath }), warm: 0 });
  providers.push(provider);
  const { hooks, over } = outageDuringFirstCall(proxy, OUTAGE_S);
  const t0 = Date.now();
  const r = await runEnvironment({
    env: napEnv(3),
    config: { policy: { kind: "oracle" }, concurrency: 3, sandbox: "docker" },
    runsDir: tmp("rlenv-outage-runs-"),
    sandboxProvider: provider,
    hooks,
  });
  await over;
  const retried = r.rollouts.filter((x) => readTrajectory(x.file).events.some((e) => e.type === "start" && (e.attempt ?? 1) > 1));
  console.log(
    `outage of ${OUTAGE_S} s ridden through: run took ${((Date.now() - t0) / 1000).toFixed(1)} s, ${retried.length} rollouts retried`,
  );
  assert.ok(retried.length > 0, "the outage hit no rollout: the test proved nothing");
  assert.equal(r.summary.infra_errors ?? 0, 0, JSON.stringify(r.rollouts.map((x) => x.reason)));
  assert.deepEqual(
    r.rollouts.map((x) => [x.status, x.reward]),
    r.rollouts.map(() => ["completed", 1]),
  );
  assert.equal(r.record.status, "completed");
});

test("an outage longer than the wait: infrastructure errors, and run.json says incomplete, not completed", { skip }, async () => {
  const proxy = new DockerProxy();
  proxies.push(proxy);
  await proxy.up();
  const provider = await DockerSandboxProvider.create({ docker: new Docker({ socketPath: proxy.socketPath }), warm: 0 });
  providers.push(provider);
  const { hooks, over } = outageDuringFirstCall(proxy, 8);
  const r = await runEnvironment({
    env: napEnv(1),
    config: { policy: { kind: "oracle" }, concurrency: 1, sandbox: "docker" },
    runsDir: tmp("rlenv-outage-runs-"),
    sandboxProvider: provider,
    hooks,
    backendWaitMs: 2_000,
  });
  await over;
  assert.equal(r.summary.infra_errors, 1);
  assert.match(r.rollouts[0]?.reason ?? "", /the docker backend did not answer for 2 s/);
  assert.equal(r.record.status, "incomplete");
  const onDisk = JSON.parse(readFileSync(path.join(r.runDir, "run.json"), "utf8")) as { status: string };
  assert.equal(onDisk.status, "incomplete");
});

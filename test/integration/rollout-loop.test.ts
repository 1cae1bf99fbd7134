import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import type { DomainPlugin } from "../../src/core/model/domain";
import { PlannedPolicy } from "../../src/core/policy/scripted";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { ProcessSandboxProvider } from "../../src/core/sandbox/process/provider";
import type { SandboxProvider, SandboxRequest } from "../../src/core/model/sandbox";
import { events, fixtureEnv, leftovers, ofType, processProvider, tmp } from "./rollout-helpers";

let provider: SandboxProvider | undefined;
let baseDir = "";
let skip: string | false = false;
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else ({ provider, baseDir } = p);
});
after(async () => {
  await provider?.shutdown();
  // Closed sandboxes may wait warm for reuse until shutdown; after it none is left on disk.
  if (baseDir) assert.deepEqual(leftovers(baseDir), [], "shutdown removed every sandbox");
});

const plan = (...turns: Array<Array<[string, unknown]>>) =>
  new PlannedPolicy(
    "scripted",
    turns.map((calls) => ({ content: null, calls: calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })) })),
  );

test("domain plugin: setup before the first turn, teardown after, state shared; no tool needs a sandbox so none is made", async (t) => {
  if (skip) return t.skip(skip);
  const env = fixtureEnv();
  const calls: string[] = [];
  const domain: DomainPlugin = {
    name: "counter",
    tools: () => [
      {
        name: "bump",
        description: "add one",
        parameters: { type: "object", properties: {} },
        run: async (_a, ctx) => {
          const n = ((ctx.state.get("n") as number) ?? 0) + 1;
          ctx.state.set("n", n);
          calls.push(`bump ${n}`);
          return { output: `n=${n}` };
        },
      },
    ],
    setup: async (ctx) => {
      calls.push("setup");
      ctx.state.set("n", 10);
    },
    teardown: async (ctx) => {
      calls.push(`teardown n=${ctx.state.get("n")}`);
    },
    verifiers: [{ type: "exact", verify: async (_c, ctx) => ({ score: ctx.state.get("n") === 12 ? 1 : 0 }) }],
  };
  const manifest = { ...env.manifest, tools: [], reward: [{ type: "exact" as const, weight: 1, normalize: "whitespace" as const }] };
  let acquired = 0;
  const counting: SandboxProvider = {
    backend: "process",
    acquire: (r: SandboxRequest) => {
      acquired++;
      return provider!.acquire(r);
    },
    shutdown: async () => {},
  };
  const file = path.join(tmp("rlenv-loop-"), "r.jsonl");
  const r = await runRollout({
    env: { ...env, manifest, builtinTools: [], customTools: [] },
    task: env.tasks[0]!,
    policy: plan(
      [
        ["bump", {}],
        ["bump", {}],
      ],
      [["submit", {}]],
    ),
    sandboxProvider: counting,
    domain,
    file,
    runId: "r",
    rolloutId: "x",
  });
  assert.deepEqual(calls, ["setup", "bump 11", "bump 12", "teardown n=12"]);
  assert.equal(r.reward, 1);
  assert.equal(acquired, 0, "a rollout whose tools never touch the sandbox never acquires one");
  assert.deepEqual(
    ofType(events(file), "start")[0]?.tools?.map((x) => x.name),
    ["bump", "submit"],
  );
});

test("debugger hooks: beforePolicyCall sees each turn, beforeToolCall may edit the call (recorded as edited)", async (t) => {
  if (skip) return t.skip(skip);
  const env = fixtureEnv();
  const turns: number[] = [];
  const seen: string[] = [];
  const file = path.join(tmp("rlenv-loop-"), "r.jsonl");
  const r = await runRollout({
    env,
    task: env.tasks.find((x) => x.id === "via-files")!,
    policy: plan([["put", { path: "greet.txt", text: "goodbye" }]], [["submit", { answer: "42" }]]),
    sandboxProvider: provider!,
    file,
    runId: "r",
    rolloutId: "x",
    hooks: {
      beforePolicyCall: async ({ turn }) => {
        turns.push(turn);
      },
      beforeToolCall: async (call, sandbox) => {
        // The debugger can look into the live sandbox before deciding.
        if (call.name !== "put") return call;
        const sb = await sandbox();
        seen.push((await sb.readFiles(["greet.txt"]))["greet.txt"]?.toString() ?? "");
        return { ...call, arguments: { path: "greet.txt", text: "hello world" } };
      },
    },
  });
  assert.deepEqual(turns, [0, 1]);
  assert.deepEqual(seen, ["hello\n"]);
  assert.equal(r.reward, 1, r.reason);
  const tc = ofType(events(file), "tool_call");
  assert.deepEqual([tc[0]?.edited, tc[1]?.edited], [true, undefined]);
  assert.deepEqual(tc[0]?.arguments, { path: "greet.txt", text: "hello world" });
});

test("a sandbox that fails to start is an infra error: retried, and the retry succeeds", async (t) => {
  if (skip) return t.skip(skip);
  let failures = 1;
  // Fault injection around the real provider: the first acquire fails as a dead engine would.
  const flaky: SandboxProvider = {
    backend: "process",
    acquire: (r) => (failures-- > 0 ? Promise.reject(new Error("engine not answering")) : provider!.acquire(r)),
    shutdown: async () => {},
  };
  const r = await runEnvironment({
    env: fixtureEnv(),
    config: { policy: { kind: "oracle" }, tasks: ["via-files"] },
    runsDir: tmp("rlenv-loop-"),
    sandboxProvider: flaky,
    infraBackoff: { baseMs: 5, maxMs: 10 },
  });
  assert.equal(r.rollouts[0]?.status, "completed");
  assert.equal(r.rollouts[0]?.reward, 1);
  const first = events(path.join(r.runDir, "attempts", "via-files.s0.try1.jsonl"));
  const err = ofType(first, "error")[0]!;
  assert.deepEqual([err.where, err.infra], ["sandbox", true]);
  assert.match(err.message, /engine not answering/);
  assert.equal(ofType(first, "end")[0]?.status, "error");
  // None still held (a closed one may stay warm for reuse until shutdown).
  assert.deepEqual((provider as ProcessSandboxProvider).lentIds, []);
});

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { RolloutDebugger } from "../../../src/core/debug/controller";
import { PlannedPolicy } from "../../../src/core/policy/scripted";
import type { SandboxProvider } from "../../../src/core/model/sandbox";
import { type DebugHost, RolloutDebugSession } from "../../../src/extension/debug/adapter";
import { fixtureEnv, processProvider, tmp } from "../../integration/rollout-helpers";

// The Debug Adapter (no vscode in it) driven through DAP messages, as VS Code drives it, against the process sandbox.
let provider: SandboxProvider | undefined;
let skip: string | false = false;
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else provider = p.provider;
});
after(() => provider?.shutdown());

// biome-ignore lint/suspicious/noExplicitAny: DAP messages are untyped JSON here
type Msg = any;

function session() {
  const env = fixtureEnv();
  const task = env.tasks.find((t) => t.id === "via-files")!;
  const policy = new PlannedPolicy("scripted", [
    { content: "try", calls: [{ name: "put", arguments: JSON.stringify({ path: "greet.txt", text: "bye", meta: { n: 1 } }) }] },
    { content: "done", calls: [{ name: "submit", arguments: JSON.stringify({ answer: "42" }) }] },
  ]);
  let live = 0;
  const host: DebugHost = {
    launch: async () => ({
      debugger: new RolloutDebugger({
        env,
        task,
        policy,
        sandboxProvider: provider!,
        file: path.join(tmp("rlenv-dap-"), "r.jsonl"),
        runId: "dap",
        rolloutId: "via-files.s0",
        pauseAtEnd: false,
      }),
      env,
      task,
      label: "fixture",
      dispose: async () => {},
    }),
    fork: () => Promise.reject(new Error("not used")),
    forkSession: () => Promise.reject(new Error("not used")),
    live: () => {
      live++;
      return () => live--;
    },
  };
  const s = new RolloutDebugSession(host);
  const sent: Msg[] = [];
  s.onDidSendMessage((m) => sent.push(m));
  let seq = 1;
  const request = (command: string, args?: unknown): Promise<Msg> => {
    const id = seq++;
    const from = sent.length;
    s.handleMessage({ seq: id, type: "request", command, arguments: args } as Msg);
    return waitFor(() => sent.slice(from).find((m) => m.type === "response" && m.request_seq === id));
  };
  const event = (name: string, from: number) => waitFor(() => sent.slice(from).find((m) => m.type === "event" && m.event === name));
  return { s, sent, request, event, task, liveCount: () => live };
}

async function waitFor<T>(check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("no such message");
}

test("DAP: breakpoints verified or explained, nested argument edit, console in the sandbox, run to the end", async (t) => {
  if (skip) return t.skip(skip);
  const { request, event, sent, task, liveCount } = session();
  await request("initialize", { adapterID: "rlenv" });
  const launched = request("launch", { environment: "/x", task: "via-files" });
  await event("initialized", 0);
  assert.equal(liveCount(), 1, "the rollout is registered live for the session");
  const fb = await request("setFunctionBreakpoints", {
    breakpoints: [{ name: "put" }, { name: "reward:nope<1" }, { name: "observation:/(/" }],
  });
  assert.deepEqual(
    fb.body.breakpoints.map((b: Msg) => b.verified),
    [true, false, false],
  );
  assert.match(fb.body.breakpoints[1].message, /no reward component 'nope'; the components are: hidden-check, answer/);
  const lb = await request("setBreakpoints", {
    source: { path: task.source.file },
    breakpoints: [{ line: task.source.line }, { line: 999 }],
  });
  assert.deepEqual(
    lb.body.breakpoints.map((b: Msg) => b.verified),
    [true, false],
  );
  assert.match(lb.body.breakpoints[1].message, /no task starts on this line/);
  await request("setBreakpoints", { source: { path: task.source.file }, breakpoints: [] });
  const from = sent.length;
  await request("configurationDone");
  await launched;
  const stop = await event("stopped", from);
  assert.equal(stop.body.reason, "function breakpoint");

  const frames = (await request("stackTrace", { threadId: 1 })).body.stackFrames;
  // The turns' source is the rollout as a person reads it, with the top frame on the pending call.
  const src = frames[0].source;
  assert.ok(src.sourceReference > 0, "a readable view served by the adapter, not the JSONL file");
  const content: string = (await request("source", { source: src, sourceReference: src.sourceReference })).body.content;
  assert.match(content.split("\n")[frames[0].line - 1] ?? "", /^▶ call put .*paused here/);
  assert.match(content, /"meta": \{\n\s+"n": 1\n/, "the pending call's arguments pretty-printed");
  const scopes = (await request("scopes", { frameId: frames[0].id })).body.scopes;
  const pending = (await request("variables", { variablesReference: scopes[0].variablesReference })).body.variables;
  const args = (await request("variables", { variablesReference: pending.find((v: Msg) => v.name === "arguments").variablesReference }))
    .body.variables;
  const meta = (await request("variables", { variablesReference: args.find((v: Msg) => v.name === "meta").variablesReference })).body
    .variables;
  const argsRef = args.find((v: Msg) => v.name === "meta").variablesReference;
  assert.equal(meta[0].name, "n");
  assert.equal((await request("setVariable", { variablesReference: argsRef, name: "n", value: "2" })).success, true);
  assert.equal(
    (await request("setVariable", { variablesReference: scopes[0].variablesReference, name: "id", value: '"x"' })).success,
    false,
    "the call id is not editable",
  );
  const text = await request("setVariable", {
    variablesReference: pending.find((v: Msg) => v.name === "arguments").variablesReference,
    name: "text",
    value: "hello world",
  });
  assert.equal(text.body.value, '"hello world"', "a value that is not JSON is taken as text");
  const state = (await request("state")).body;
  assert.deepEqual(state.pending.arguments, { path: "greet.txt", text: "hello world", meta: { n: 2 } });
  const repl = await request("evaluate", { expression: "cat greet.txt", context: "repl" });
  assert.equal(repl.body.result, "hello");
  const unknown = await request("evaluate", { expression: "x", context: "watch" });
  assert.equal(unknown.success, false);
  assert.match(unknown.message, /x is not defined \(expressions see tool, args, turn/);
  // Watch expressions see the debugger state, objects expandable; `=` in the console does the same.
  const watch = await request("evaluate", { expression: "args.meta", context: "watch" });
  assert.equal(watch.body.result, '{"n":2}');
  const watchVars = (await request("variables", { variablesReference: watch.body.variablesReference })).body.variables;
  assert.deepEqual(
    watchVars.map((v: Msg) => [v.name, v.value]),
    [["n", "2"]],
  );
  assert.equal((await request("evaluate", { expression: "= tool + ' @ turn ' + turn", context: "repl" })).body.result, '"put @ turn 0"');
  assert.equal((await request("evaluate", { expression: "messages.length > 1", context: "watch" })).body.result, "true");
  assert.equal((await request("evaluate", { expression: "args.meta.n", context: "hover" })).body.result, "2");
  assert.equal(
    (await request("evaluate", { expression: '"content"', context: "hover" })).success,
    false,
    "a quoted word under the mouse is no hover",
  );
  const bad = await request("editPendingCall", { arguments: [1] });
  assert.equal(bad.success, false);
  assert.match(bad.message, /editPendingCall: arguments/);

  const before = sent.length;
  await request("continue", { threadId: 1 });
  assert.ok(sent.slice(before).some((m) => m.event === "continued"));
  await event("terminated", before);
  assert.equal(liveCount(), 0, "no longer live once ended");
  const out = sent.filter((m) => m.event === "output").map((m) => m.body.output as string);
  assert.ok(
    out.some((o) => /put .*"text":"hello world".*\(edited\)/.test(o)),
    out.join(""),
  );
  assert.ok(
    out.some((o) => /rollout completed.*reward 1/.test(o)),
    out.join(""),
  );
});

test("DAP: a bad launch configuration fails the launch with the reason", async () => {
  const { request } = session();
  await request("initialize", { adapterID: "rlenv" });
  const r = await request("launch", { environment: "/x", task: "t", policy: "gpt-4" });
  assert.equal(r.success, false);
  assert.match(r.message, /policy: policy must be oracle, nop, human, model/);
});

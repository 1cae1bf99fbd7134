import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as vscode from "vscode";
import { type ScriptedServer, startScriptedServer } from "../../support/scripted-openai-server";
import type { OpenedSandboxTerminal } from "../../../src/extension/sandbox-live/activate";
import { missing } from "../../support/services";
import { examplesDir, extensionApi, screenshot, waitFor } from "./helpers";
import { pickValidatable } from "./validatable";

// biome-ignore lint/suspicious/noExplicitAny: DAP messages as the tracker sees them (untyped JSON)
type Msg = any;

/**
 * The rollout debugger through the real Debug Adapter Protocol in the real extension host:
 * a scripted OpenAI-compatible policy writes a wrong solution; a function breakpoint on
 * the tool stops it; the pending call is read from the Variables and edited; Step Over and
 * Continue run it to the end pause with the reward; the trajectory records the edit.
 */
suite("Rollout debugger", () => {
  let server: ScriptedServer | undefined;
  const messages: Msg[] = [];
  /** Which session sent each message (a fork runs as a child session beside its parent). */
  const sessionOf = new WeakMap<Msg, string>();
  /** rlenv sessions started and not yet ended, oldest first. */
  const running: vscode.DebugSession[] = [];
  const subs: vscode.Disposable[] = [];
  const config = () => vscode.workspace.getConfiguration("rlenv");

  suiteSetup(() => {
    subs.push(
      vscode.debug.registerDebugAdapterTrackerFactory("rlenv", {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (m: Msg) => {
            if (m && typeof m === "object") sessionOf.set(m, session.id);
            messages.push(m);
          },
        }),
      }),
      vscode.debug.onDidStartDebugSession((s) => {
        if (s.type === "rlenv") running.push(s);
      }),
      vscode.debug.onDidTerminateDebugSession((s) => {
        const i = running.findIndex((r) => r.id === s.id);
        if (i >= 0) running.splice(i, 1);
      }),
    );
  });

  teardown(async () => {
    for (const s of [...running].reverse()) await vscode.debug.stopDebugging(s);
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    await server?.close();
    server = undefined;
    await config().update("policy.model", undefined, vscode.ConfigurationTarget.Workspace);
    await config().update("policy.baseUrl", undefined, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(() => {
    for (const s of subs) s.dispose();
  });

  /** The next `stopped` (or `terminated`) event after message index `from`. */
  const nextEvent = (name: string, from: number, sessionId?: string) =>
    waitFor(
      `DAP event ${name}`,
      () => messages.slice(from).find((m) => m.type === "event" && m.event === name && (!sessionId || sessionOf.get(m) === sessionId)),
      120_000,
    );

  async function usePolicy(steps: Parameters<typeof startScriptedServer>[0]) {
    server = await startScriptedServer(steps);
    await config().update("policy.baseUrl", server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update("policy.model", "scripted-policy", vscode.ConfigurationTarget.Workspace);
  }

  /** The one-click start: a policy that submits at once, `rlenv.debugTask` on the task, the session and its stop on entry. */
  async function oneClickSession(
    pick: NonNullable<ReturnType<typeof pickValidatable>>,
  ): Promise<{ session: vscode.DebugSession; from: number; stop: Msg }> {
    await usePolicy([{ reply: { content: "Done.", tool_calls: [{ name: "submit", arguments: {} }] } }]);
    const from = messages.length;
    assert.equal(await vscode.commands.executeCommand("rlenv.debugTask", { envDir: pick.entry.dir, taskId: pick.taskId }), true);
    const session = await waitFor("the rlenv session", () =>
      vscode.debug.activeDebugSession?.type === "rlenv" ? vscode.debug.activeDebugSession : undefined,
    );
    const stop = await nextEvent("stopped", from, session.id);
    return { session, from, stop };
  }

  test("breakpoint on a tool, read and edit the pending call, step, continue to the reward; the trajectory records the edit", async function () {
    this.timeout(240_000);
    const api = await extensionApi();
    const pick = pickValidatable(api);
    const task = pick?.entry.result.env?.tasks.find((t) => t.id === pick.taskId);
    const [solPath, solContent] = Object.entries(task?.solution?.files ?? {})[0] ?? [];
    const solText = typeof solContent === "string" ? solContent : undefined;
    if (!pick || !solPath || solText === undefined) return this.skip();
    await usePolicy([
      {
        reply: {
          content: "Writing my attempt.",
          tool_calls: [{ name: "write_file", arguments: { path: solPath, content: "print('wrong')\n" } }],
        },
      },
      { reply: { content: "Done.", tool_calls: [{ name: "submit", arguments: { summary: "done" } }] } },
    ]);
    vscode.debug.addBreakpoints([new vscode.FunctionBreakpoint("write_file"), new vscode.FunctionBreakpoint("reward>1")]);
    // The Run and Debug view open before the stop, so the screenshot shows Variables and Call Stack as a user sees them.
    await vscode.commands.executeCommand("workbench.view.debug");
    const from = messages.length;
    const ok = await vscode.debug.startDebugging(undefined, {
      type: "rlenv",
      request: "launch",
      name: "debug suite",
      environment: pick.entry.dir,
      task: pick.taskId,
      policy: "model",
    });
    assert.ok(ok, "the session started");
    const session = await waitFor("the rlenv session", () =>
      vscode.debug.activeDebugSession?.type === "rlenv" ? vscode.debug.activeDebugSession : undefined,
    );

    // The bad breakpoint text comes back unverified, with how to write it.
    const fnBps = await waitFor("setFunctionBreakpoints response", () =>
      messages.slice(from).find((m) => m.type === "response" && m.command === "setFunctionBreakpoints"),
    );
    const bad = fnBps.body.breakpoints.find((b: Msg) => !b.verified);
    assert.match(bad?.message ?? "", /write reward<VALUE/);

    const stop1 = await nextEvent("stopped", from);
    assert.equal(stop1.body.reason, "function breakpoint");
    const trace = (await session.customRequest("stackTrace", { threadId: 1 })) as Msg;
    assert.match(trace.stackFrames[0].name, /turn 0: write_file/);
    assert.match(trace.stackFrames.at(-1).name, new RegExp(`task ${pick.taskId}`));
    const scopes = ((await session.customRequest("scopes", { frameId: trace.stackFrames[0].id })) as Msg).scopes as Msg[];
    assert.deepEqual(
      scopes.map((s) => s.name),
      ["Pending tool call", "Last observation", "Messages", "Sandbox"],
    );
    const pendingRef = scopes[0].variablesReference;
    const pending = ((await session.customRequest("variables", { variablesReference: pendingRef })) as Msg).variables as Msg[];
    assert.equal(pending.find((v) => v.name === "name")?.value, '"write_file"');
    const argsRef = pending.find((v) => v.name === "arguments")?.variablesReference;
    const args = ((await session.customRequest("variables", { variablesReference: argsRef })) as Msg).variables as Msg[];
    assert.equal(args.find((v) => v.name === "path")?.value, JSON.stringify(solPath));
    const messagesRef = scopes.find((s) => s.name === "Messages").variablesReference;
    const msgs = ((await session.customRequest("variables", { variablesReference: messagesRef })) as Msg).variables as Msg[];
    assert.ok(msgs.length >= 2, "the conversation so far");

    // Edit one argument in place (setVariable), as the Variables view does.
    const set = (await session.customRequest("setVariable", {
      variablesReference: argsRef,
      name: "content",
      value: JSON.stringify(solText),
    })) as Msg;
    assert.equal(set.value, JSON.stringify(solText.length > 120 ? `${solText.slice(0, 120)}…` : solText));
    const state = (await session.customRequest("state")) as Msg;
    assert.deepEqual(state.pending.arguments, { path: solPath, content: solText });
    // The Debug Console runs in the live sandbox.
    const ls = (await session.customRequest("evaluate", { expression: "ls", context: "repl" })) as Msg;
    assert.match(ls.result, new RegExp(solPath.split("/")[0] ?? solPath));

    // The editor shows the rollout as a person reads it (not the raw JSONL), the current-line marker on the pending call.
    const shown = await waitFor(
      "the readable rollout in an editor",
      () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "debug" && e.document.getText().includes("paused here")),
      20_000,
    );
    const top = trace.stackFrames[0];
    assert.ok(top.source.sourceReference > 0);
    assert.match(shown.document.lineAt(top.line - 1).text, /^▶ call write_file .*paused here/);
    assert.doesNotMatch(shown.document.getText(), /^\{"type":/m, "no raw trajectory lines");
    // Its prompts are paragraphs: the rollout's own language wraps its long lines.
    await waitFor(
      "the readable rollout in its own language",
      () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "debug" && e.document.languageId === "rlenv-rollout"),
      10_000,
    );
    assert.equal(vscode.workspace.getConfiguration("editor", { languageId: "rlenv-rollout" }).get("wordWrap"), "on");
    await screenshot("debug-paused");

    const before2 = messages.length;
    await session.customRequest("next", { threadId: 1 });
    const stop2 = await nextEvent("stopped", before2);
    assert.equal(stop2.body.reason, "step");
    assert.equal(((await session.customRequest("state")) as Msg).pending.name, "submit");

    const before3 = messages.length;
    await session.customRequest("continue", { threadId: 1 });
    const stop3 = await nextEvent("stopped", before3);
    assert.equal(stop3.body.reason, "end");
    const end = (await session.customRequest("state")) as Msg;
    assert.equal(end.reward.total, 1, JSON.stringify(end.reward));
    const endScopes = ((await session.customRequest("scopes", { frameId: 1 })) as Msg).scopes as Msg[];
    assert.ok(endScopes.some((s) => s.name === "Reward"));
    await screenshot("debug-ended-reward");

    const before4 = messages.length;
    await session.customRequest("continue", { threadId: 1 });
    await nextEvent("terminated", before4);
    const events = readFileSync(end.file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Msg);
    const call = events.find((e) => e.type === "tool_call" && e.name === "write_file");
    assert.equal(call.edited, true);
    assert.deepEqual(call.arguments, { path: solPath, content: solText });
    assert.equal(events.find((e) => e.type === "reward")?.total, 1);
    assert.equal(events.at(-1)?.type, "end");
  });

  test("rlenv.debugTask starts a paused session in one click; a fork runs the oracle from there; stopping cancels the rollout", async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    const pick = pickValidatable(api);
    if (!pick) return this.skip();
    const { session, from, stop } = await oneClickSession(pick);
    assert.equal(stop.body.reason, "entry");
    const { file } = (await session.customRequest("state")) as Msg;
    const bad = await Promise.resolve(session.customRequest("fork", { policy: "gpt" })).then(
      () => "accepted",
      (e: Error) => e.message,
    );
    assert.match(bad, /fork policy must be oracle, nop, human or model/);
    const fork = (await session.customRequest("fork", { policy: "oracle", mode: "run" })) as Msg;
    assert.deepEqual([fork.status, fork.reward], ["completed", 1]);
    const start = JSON.parse(readFileSync(fork.file, "utf8").split("\n")[0] ?? "{}") as Msg;
    assert.equal(start.forked_from.file, file);
    assert.equal(start.forked_from.turn, 0);
    await vscode.debug.stopDebugging(session);
    await nextEvent("terminated", from);
    const last = await waitFor("the end event", () => {
      const lines = readFileSync(file, "utf8").trim().split("\n");
      const e = JSON.parse(lines.at(-1) ?? "{}") as Msg;
      return e.type === "end" ? e : undefined;
    });
    assert.equal(last.status, "cancelled");
  });

  /** Paused before `bash`: the terminal, Sandbox Files and expressions on one backend; the rollout then reads the terminal's file. */
  async function pausedSandbox(ctx: Mocha.Context, backend: "docker" | "process", shot: string): Promise<void> {
    const api = await extensionApi();
    const entry = api.ctx.environments.list().find((e) => e.dir.startsWith(examplesDir()) && e.label === "code-stdio");
    if (!entry?.result.env?.tasks.some((t) => t.id === "sum-numbers")) return ctx.skip();
    await usePolicy([
      {
        reply: {
          content: "A note first.",
          tool_calls: [{ name: "write_file", arguments: { path: "agent-note.txt", content: "written-by-agent\n" } }],
        },
      },
      {
        reply: { content: "Reading what the human left.", tool_calls: [{ name: "bash", arguments: { command: "cat from-terminal.txt" } }] },
      },
      { reply: { content: "Done.", tool_calls: [{ name: "submit", arguments: {} }] } },
    ]);
    vscode.debug.addBreakpoints([new vscode.FunctionBreakpoint("bash")]);
    await vscode.commands.executeCommand("workbench.view.debug");
    const from = messages.length;
    assert.ok(
      await vscode.debug.startDebugging(undefined, {
        type: "rlenv",
        request: "launch",
        name: "terminal suite",
        environment: entry.dir,
        task: "sum-numbers",
        policy: "model",
        sandbox: backend,
      }),
    );
    const session = await waitFor("the rlenv session", () =>
      vscode.debug.activeDebugSession?.type === "rlenv" ? vscode.debug.activeDebugSession : undefined,
    );
    const stop = await nextEvent("stopped", from, session.id);
    assert.equal(stop.body.reason, "function breakpoint");
    assert.equal(((await session.customRequest("state")) as Msg).pending.name, "bash");
    assert.ok(
      api.ctx.live.all().some((r) => r.id === session.id),
      "the paused rollout is live",
    );

    // The terminal: typed text goes through the Pseudoterminal's input, as a user's keystrokes do.
    const opened = await vscode.commands.executeCommand<OpenedSandboxTerminal | undefined>("rlenv.debug.openSandboxTerminal");
    assert.ok(opened, "the terminal opened on the active session's rollout");
    assert.equal(opened.rolloutId, session.id);
    let shown = "";
    opened.pty.onDidWrite((d) => {
      shown += d;
    });
    opened.terminal.sendText("cat agent-note.txt; echo made-in-terminal > from-terminal.txt; echo backend-$((6*7))-ok");
    await waitFor("the terminal's output", () => /^written-by-agent\r?$/m.test(shown) && /^backend-42-ok\r?$/m.test(shown), 60_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}; the terminal showed ${JSON.stringify(shown)}`);
      },
    );
    await screenshot(shot);

    // Sandbox Files during the pause: both files through the rlenv-sandbox: URI.
    const files = await vscode.commands.executeCommand<{ rolloutId: string; root: vscode.Uri } | undefined>("rlenv.debug.openSandboxFiles");
    assert.ok(files);
    assert.equal(files.root.scheme, "rlenv-sandbox");
    const read = async (name: string) =>
      new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(files.root, name)));
    assert.equal(await read("agent-note.txt"), "written-by-agent\n");
    assert.equal(await read("from-terminal.txt"), "made-in-terminal\n");

    // Watch expressions over the debugger state; `=` in the Debug Console; a plain line is a shell command.
    const watch = (await session.customRequest("evaluate", { expression: "args", context: "watch", frameId: 1 })) as Msg;
    assert.equal(watch.result, JSON.stringify({ command: "cat from-terminal.txt" }));
    assert.ok(watch.variablesReference > 0, "an object watch expands");
    const inner = ((await session.customRequest("variables", { variablesReference: watch.variablesReference })) as Msg).variables as Msg[];
    assert.deepEqual(
      inner.map((v) => [v.name, v.value]),
      [["command", '"cat from-terminal.txt"']],
    );
    assert.equal(
      ((await session.customRequest("evaluate", { expression: "= tool + ' at turn ' + turn", context: "repl" })) as Msg).result,
      '"bash at turn 1"',
    );
    assert.equal(
      ((await session.customRequest("evaluate", { expression: "wc -c < from-terminal.txt", context: "repl" })) as Msg).result,
      "17",
    );

    const before = messages.length;
    await session.customRequest("continue", { threadId: 1 });
    const end = await nextEvent("stopped", before, session.id);
    assert.equal(end.body.reason, "end");
    const { file } = (await session.customRequest("state")) as Msg;
    opened.terminal.dispose();
    const done = messages.length;
    await session.customRequest("continue", { threadId: 1 });
    await nextEvent("terminated", done, session.id);
    // The rollout saw the terminal's file: the bash step after the pause printed it.
    const events = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Msg);
    const obs = events.find((e) => e.type === "observation" && e.name === "bash");
    assert.match(JSON.stringify(obs?.output), /made-in-terminal/);
    assert.equal(events.find((e) => e.type === "start")?.sandbox?.backend, backend);
    await waitFor("the session's rollout removed from the live ones", () => !api.ctx.live.all().some((r) => r.id === session.id));
  }

  test("paused at a tool breakpoint (docker): a terminal in the sandbox reads what the agent wrote and leaves a file the rollout sees; Sandbox Files reads it; watch expressions", async function () {
    if (missing("docker") || missing("image")) return this.skip();
    this.timeout(240_000);
    await pausedSandbox(this, "docker", "debug-paused-terminal");
  });

  test("the same on the process backend", async function () {
    this.timeout(240_000);
    await pausedSandbox(this, "process", "debug-paused-terminal-process");
  });

  test("Fork starts a child debug session stopped on entry; continuing it runs the oracle to a reward in a trajectory that says where it came from", async function () {
    this.timeout(180_000);
    const api = await extensionApi();
    const pick = pickValidatable(api);
    if (!pick) return this.skip();
    const { session: parent, from } = await oneClickSession(pick);
    const { file: parentFile } = (await parent.customRequest("state")) as Msg;

    const forked = await vscode.commands.executeCommand<{ file: string; forkId: string } | undefined>("rlenv.debug.fork", "oracle");
    assert.ok(forked, "the fork command answered");
    const child = await waitFor("the fork's session", () => running.find((s) => s.parentSession?.id === parent.id));
    assert.equal(child.configuration.forkId, forked.forkId, "the configuration carries only the fork's id");
    assert.equal(child.configuration.policy, "oracle");
    const entry = await nextEvent("stopped", from, child.id);
    assert.equal(entry.body.reason, "entry");
    const childState = (await child.customRequest("state")) as Msg;
    assert.equal(childState.file, forked.file);
    assert.equal(childState.state, "paused");
    assert.ok(
      api.ctx.live.all().some((r) => r.id === child.id),
      "the fork's sandbox is live too",
    );
    // The parent stays paused where it was forked.
    assert.equal(((await parent.customRequest("state")) as Msg).state, "paused");
    await screenshot("debug-fork-session");

    const before = messages.length;
    await child.customRequest("continue", { threadId: 1 });
    const end = await nextEvent("stopped", before, child.id);
    assert.equal(end.body.reason, "end");
    assert.equal(((await child.customRequest("state")) as Msg).reward.total, 1);
    const done = messages.length;
    await child.customRequest("continue", { threadId: 1 });
    await nextEvent("terminated", done, child.id);
    const events = readFileSync(forked.file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Msg);
    assert.equal(events[0]?.forked_from?.file, parentFile);
    assert.equal(events.find((e) => e.type === "reward")?.total, 1);
    assert.equal(events.at(-1)?.status, "completed");
    await waitFor("the fork's rollout removed from the live ones", () => !api.ctx.live.all().some((r) => r.id === child.id));
    // A prepared fork is handed over once: its id cannot start a second session.
  });
});

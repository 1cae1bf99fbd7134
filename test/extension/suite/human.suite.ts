import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as vscode from "vscode";
import type { PlaySession } from "../../../src/extension/human/play";
import type { OpenedSandboxTerminal } from "../../../src/extension/sandbox-live/activate";
import { missing } from "../../support/services";
import { examplesDir, extensionApi, screenshot, waitFor } from "./helpers";

const SOLUTION = "import sys\nd = sys.stdin.read().split()\nprint(sum(int(x) for x in d[1:]))\n";

/** Everything a sandbox terminal wrote, and a way to wait (by content) for a pattern in it. */
function terminalOutput(opened: OpenedSandboxTerminal): { text: () => string; until: (re: RegExp) => Promise<string> } {
  let buf = "";
  opened.pty.onDidWrite((s) => {
    buf += s;
  });
  const until = (re: RegExp) =>
    waitFor(`terminal output ${re}`, () => (re.test(buf) ? buf : undefined), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; the terminal showed: ${JSON.stringify(buf)}`);
    });
  return { text: () => buf, until };
}

/**
 * Play Task: the user is the agent in a real rollout (process sandbox, the code-stdio
 * example). The test plays through the panel's message door (the same parse as the
 * webview's messages), opens the live sandbox's terminal and files mid-game, submits, and
 * reads the trajectory the run engine saved.
 */
suite("Play Task (human policy) and the live sandbox", () => {
  const config = () => vscode.workspace.getConfiguration("rlenv");
  suiteSetup(async () => {
    await config().update("sandbox.backend", "process", vscode.ConfigurationTarget.Workspace);
  });
  suiteTeardown(async () => {
    await config().update("sandbox.backend", undefined, vscode.ConfigurationTarget.Workspace);
  });

  /** One game through the panel on the given sandbox backend; screenshots are named after it. */
  async function playThrough(ctx: Mocha.Context, backend: "process" | "docker"): Promise<void> {
    await config().update("sandbox.backend", backend, vscode.ConfigurationTarget.Workspace);
    const shot = (name: string) => screenshot(backend === "process" ? name : `${name}-${backend}`);
    const api = await extensionApi();
    const entry = api.ctx.environments.list().find((e) => e.dir.startsWith(examplesDir()) && e.label === "code-stdio");
    if (!entry?.result.env?.tasks.some((t) => t.id === "sum-numbers")) return ctx.skip();
    const session = await vscode.commands.executeCommand<PlaySession | undefined>("rlenv.playTask", {
      envDir: entry.dir,
      taskId: "sum-numbers",
    });
    assert.ok(session?.panel, "the command returns the session");
    const { panel } = session;
    try {
      const first = await waitFor("the first turn", () => panel.current().phase === "your-turn" && panel.current(), 60_000);
      assert.equal(first.turn, 0);
      assert.ok(
        first.tools.some((t) => t.name === "write_file") && first.tools.some((t) => t.name === "submit"),
        first.tools.map((t) => t.name).join(", "),
      );
      assert.match(first.messages.find((m) => m.role === "user")?.text ?? "", /Print their sum/);
      await waitFor("the panel's app to start", () => panel.webviewReady, 30_000);
      await shot("play-task-first-turn");

      // A move the rollout cannot take is refused in the panel; the turn stays open.
      panel.receive({ kind: "move", action: { kind: "tool", name: "rm_rf", arguments: {} } });
      assert.match(panel.current().notice ?? "", /Move refused: unknown tool 'rm_rf'/);
      assert.equal(panel.current().phase, "your-turn");
      // A malformed message is dropped (parsed like every webview message).
      panel.receive({ kind: "move", action: { kind: "tool" } });
      assert.equal(panel.current().phase, "your-turn");

      panel.receive({
        kind: "move",
        action: {
          kind: "tool",
          name: "write_file",
          arguments: { path: "solution.py", content: SOLUTION },
          content: "Writing the program.",
        },
      });
      const second = await waitFor(
        "the second turn",
        () => panel.current().phase === "your-turn" && panel.current().turn === 1 && panel.current(),
        60_000,
      );
      const observation = second.messages[second.messages.length - 1];
      assert.equal(observation?.role, "tool");
      assert.equal(observation?.tool, "write_file");
      assert.equal(second.notice, undefined, "the refusal notice is gone after a good move");

      // Mid-game the sandbox is live: a terminal in it sees what the move wrote.
      const live = await waitFor("the played rollout among the live ones", () =>
        api.ctx.live.all().find((r) => r.label.includes("sum-numbers")),
      );
      const opened = await vscode.commands.executeCommand<OpenedSandboxTerminal | undefined>("rlenv.debug.openSandboxTerminal", live.id);
      assert.ok(opened, "the terminal opened");
      const out = terminalOutput(opened);
      opened.pty.handleInput("printf '%s\\n' 3 4 5 6 | python3 solution.py; echo \"tty:$(tty)\"; pwd\r");
      const text = await out.until(/^15\r?$[\s\S]*tty:\/dev\/pts\/\d+/m);
      assert.match(text, /^\/workspace\r?$/m);
      await shot("play-task-sandbox-terminal");
      opened.terminal.dispose();

      // And its files, read-only.
      const files = await vscode.commands.executeCommand<{ rolloutId: string; root: vscode.Uri } | undefined>(
        "rlenv.debug.openSandboxFiles",
        live.id,
      );
      assert.ok(files);
      const listing = await vscode.workspace.fs.readDirectory(files.root);
      assert.ok(
        listing.some(([n, t]) => n === "solution.py" && t === vscode.FileType.File),
        JSON.stringify(listing),
      );
      const solUri = vscode.Uri.joinPath(files.root, "solution.py");
      assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(solUri)), SOLUTION);
      await assert.rejects(
        Promise.resolve(vscode.workspace.fs.writeFile(solUri, new TextEncoder().encode("x"))),
        /read-only|NoPermissions|readonly/i,
      );
      const doc = await vscode.workspace.openTextDocument(solUri);
      await vscode.window.showTextDocument(doc, { preview: true });
      assert.equal(doc.getText(), SOLUTION);
      await shot("play-task-sandbox-files");

      panel.receive({ kind: "move", action: { kind: "tool", name: "submit", arguments: "{}" } });
      const result = await session.done;
      assert.ok(result, "the rollout finished");
      assert.equal(result.status, "completed", result.reason);
      assert.equal(result.reward, 1, result.reason);
      assert.equal(panel.current().phase, "finished");
      assert.equal(
        api.ctx.live.all().some((r) => r.id === live.id),
        false,
        "the finished rollout's sandbox is no longer live",
      );
      await shot("play-task-finished");

      const events = readFileSync(result.file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const start = events.find((e) => e.type === "start") as { policy?: { kind?: string } } | undefined;
      assert.equal(start?.policy?.kind, "human");
      const calls = events.filter((e) => e.type === "tool_call").map((e) => e.name);
      assert.deepEqual(calls, ["write_file", "submit"]);
      const said = events.find((e) => e.type === "message" && e.role === "assistant") as { content?: string } | undefined;
      assert.equal(said?.content, "Writing the program.");
      await waitFor("the trajectory viewer on the played rollout", () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .some((t) => t.label.includes(".jsonl") || (t.input as { uri?: vscode.Uri } | undefined)?.uri?.fsPath === result.file),
      );
    } finally {
      panel.dispose();
      await config().update("sandbox.backend", "process", vscode.ConfigurationTarget.Workspace);
    }
  }

  test("plays a task by hand: form moves, a refused move, terminal and files mid-game, submit, trajectory saved and opened", async function () {
    this.timeout(180_000);
    await playThrough(this, "process");
  });

  test("the same game on the docker backend: the terminal is a docker exec with a TTY", async function () {
    if (missing("docker") || missing("image")) return this.skip();
    this.timeout(180_000);
    await playThrough(this, "docker");
  });

  test("closing the panel mid-game cancels the rollout", async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    const entry = api.ctx.environments.list().find((e) => e.dir.startsWith(examplesDir()) && e.label === "code-stdio");
    if (!entry?.result.env?.tasks.some((t) => t.id === "sum-numbers")) return this.skip();
    const session = await vscode.commands.executeCommand<PlaySession | undefined>("rlenv.playTask", {
      envDir: entry.dir,
      taskId: "sum-numbers",
    });
    assert.ok(session);
    await waitFor("the first turn", () => session.panel.current().phase === "your-turn", 60_000);
    session.panel.panel.dispose();
    const result = await session.done;
    assert.equal(result?.status, "cancelled");
  });

  test("a sandbox terminal on a registered live rollout: echo, resize, exit code", async function () {
    this.timeout(60_000);
    const api = await extensionApi();
    const { ProcessSandboxProvider } = await import("../../../src/core/sandbox/process/provider");
    const { detectIsolation } = await import("../../../src/core/sandbox/process/isolation");
    if (!detectIsolation()) return this.skip();
    const provider = new ProcessSandboxProvider({});
    const sb = await provider.acquire({
      workdir: "/workspace",
      user: "1000:1000",
      limits: { cpus: 1, memoryBytes: 256 << 20, pids: 64, outputBytes: 1 << 20, tmpfsBytes: 16 << 20 },
    });
    await sb.reset({ "note.txt": "seeded\n" });
    const reg = api.ctx.live.add({ id: "ext-test-live", label: "ext-test · live", sandbox: async () => sb });
    try {
      const opened = await vscode.commands.executeCommand<OpenedSandboxTerminal | undefined>(
        "rlenv.debug.openSandboxTerminal",
        "ext-test-live",
      );
      assert.ok(opened);
      const out = terminalOutput(opened);
      const closed = new Promise<number | undefined>((resolve) => opened.pty.onDidClose(resolve));
      opened.pty.handleInput("echo hello-from-$(cat note.txt)\r");
      await out.until(/^hello-from-seeded\r?$/m);
      // VS Code sizes the terminal itself when its panel lays out, and that can come after
      // ours (CI once answered "13 126", the panel's size). So the resize is asked again
      // until the shell reports it: a resize that never reaches the pty fails every round.
      let size = "";
      for (let round = 0; round < 5 && size !== "27 91"; round++) {
        opened.pty.setDimensions({ columns: 91, rows: 27 });
        opened.pty.handleInput(`echo size-$(stty size)-${round}\r`);
        const marker = new RegExp(`size-(\\d+ \\d+)-${round}\\r?$`, "m");
        size = marker.exec(await out.until(marker))?.[1] ?? "";
      }
      assert.equal(size, "27 91", "the pty has the size the terminal was given");
      opened.pty.handleInput("exit 4\r");
      assert.equal(await closed, 4);
      assert.match(out.text(), /ended with exit code 4/);
      assert.equal((await sb.exec("cat note.txt")).stdout, "seeded\n", "the sandbox outlives its terminal");
      opened.terminal.dispose();
    } finally {
      reg.dispose();
      await provider.shutdown();
    }
  });
});

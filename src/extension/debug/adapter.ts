import { ContinuedEvent, DebugSession, InitializedEvent, OutputEvent, StoppedEvent, TerminatedEvent, Thread } from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type { RolloutDebugger } from "../../core/debug/controller";
import type { Breakpoint } from "../../core/debug/breakpoints";
import { functionBreakpoints, taskLineBreakpoints } from "./breakpoint-replies";
import { evaluateExpression } from "../../core/debug/expression";
import type { Environment } from "../../core/model/environment";
import type { LoadedTask } from "../../core/model/environment";
import { EditPendingCallArgs, ForkArgs, firstIssue, LaunchArgs } from "./launch-args";
import { rolloutScopes, stackFrames, textOf } from "./frames";
import { ReadableSources } from "./readable-sources";
import { parseTyped, preview, setAt, VariableStore } from "./variables";

/** One rollout prepared for a debug session (not started). */
export interface LaunchedRollout {
  debugger: RolloutDebugger;
  env: Environment;
  task: LoadedTask;
  /** "rollout-fixture · via-files" */
  label: string;
  /** Releases what launch took (the sandbox provider). */
  dispose(): Promise<void>;
}

/** What the adapter needs from the editor side (kept out so this file never imports vscode). */
export interface DebugHost {
  launch(args: LaunchArgs): Promise<LaunchedRollout>;
  /** Runs a fork of the paused rollout to its end with another policy. */
  fork(from: LaunchedRollout, policy: string): Promise<{ file: string; status: string; reward: number | null }>;
  /** Forks the paused rollout into a child debug session, stopped on entry; resolves once it started. */
  forkSession(from: LaunchedRollout, policy: string): Promise<{ file: string; forkId: string }>;
  /** Marks the rollout live (its sandbox reachable by the terminal and files commands); returns the undo. */
  live(r: LaunchedRollout): () => void;
}

const THREAD = 1;
const STOP_WAIT_MS = 10_000;
/** Told with an expression error, so the user learns the vocabulary. */
const SCOPE_NAMES = "tool, args, turn, observation, error, status, reward, components, messages, point";
const HOVER_PATH = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*|\[\d+\])*$/;

type Reply<T extends DebugProtocol.Response> = T;

/**
 * The Debug Adapter for `rlenv` sessions, run inline in the extension host: one thread
 * (the rollout), the turns as stack frames, the pending call / observation / messages /
 * reward / sandbox as scopes, function and task-line breakpoints, the Debug Console as a
 * shell in the sandbox, and custom requests `editPendingCall`, `fork` and `state`.
 */
export class RolloutDebugSession extends DebugSession {
  private rollout: LaunchedRollout | undefined;
  private functionBps: Breakpoint[] = [];
  private lineBps = new Map<string, Breakpoint[]>();
  private readonly vars = new VariableStore();
  private sandboxRef = 0;
  private configured: (() => void) | undefined;
  private readonly configurationDone = new Promise<void>((r) => {
    this.configured = r;
  });
  private unlive: (() => void) | undefined;
  /** The rollout as a person reads it: the turns' source in the call stack. */
  private readonly sources = new ReadableSources();

  constructor(private readonly host: DebugHost) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsFunctionBreakpoints: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsSetVariable: true,
      supportsTerminateRequest: true,
      supportsEvaluateForHovers: true,
    };
    this.sendResponse(response);
  }

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, raw: DebugProtocol.LaunchRequestArguments): Promise<void> {
    const args = LaunchArgs.safeParse(raw);
    if (!args.success) return this.fail(response, `bad rlenv launch configuration: ${firstIssue(args.error)}`);
    try {
      this.rollout = await this.host.launch(args.data);
    } catch (e) {
      return this.fail(response, (e as Error).message);
    }
    const r = this.rollout;
    const d = r.debugger;
    d.onPaused((p) => {
      this.vars.clear();
      const fn = p.breakpoint && this.functionBps.includes(p.breakpoint);
      const reason = p.reason === "breakpoint" ? (fn ? "function breakpoint" : "breakpoint") : p.reason;
      const ev = new StoppedEvent(reason, THREAD) as DebugProtocol.StoppedEvent;
      ev.body.description = p.description;
      ev.body.text = p.description;
      if (p.breakpoint) ev.body.hitBreakpointIds = [p.breakpoint.id];
      this.sendEvent(ev);
    });
    d.onEvent((e) => {
      if (e.type === "tool_call") this.out(`▶ ${e.name} ${JSON.stringify(e.arguments)}${e.edited ? "  (edited)" : ""}\n`, "console");
      else if (e.type === "observation")
        this.out(`${textOf(e.output).slice(0, 2000)}${e.exit_code ? `\n[exit ${e.exit_code}]` : ""}\n`, "stdout");
      else if (e.type === "reward")
        this.out(`reward ${e.total.toFixed(2)} (${e.components.map((c) => `${c.name} ${c.score.toFixed(2)}`).join(", ")})\n`, "important");
      else if (e.type === "error") this.out(`error (${e.where}): ${e.message}\n`, "stderr");
    });
    d.onEnded((res) => {
      this.out(
        `rollout ${res.status}${res.reason ? ` (${res.reason})` : ""}, reward ${res.reward ?? "–"}; trajectory ${res.file}\n`,
        "console",
      );
      this.finish();
    });
    this.unlive = this.host.live(r);
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
    // Breakpoints arrive between `initialized` and `configurationDone`; the rollout starts after.
    await this.configurationDone;
    // Disconnected before configuration finished: nothing to run.
    if (this.finished) return;
    d.breakpoints = this.allBreakpoints();
    this.out(`debugging ${r.label}; trajectory ${d.file}\n`, "console");
    void d.start();
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configured?.();
    this.sendResponse(response);
  }

  protected override setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): void {
    const components = this.rollout?.env.manifest.reward.map((v) => v.name ?? v.type) ?? [];
    const { out, bps } = functionBreakpoints(args.breakpoints, components);
    this.functionBps = bps;
    response.body = { breakpoints: out };
    this.applyBreakpoints();
    this.sendResponse(response);
  }

  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    const file = args.source.path ?? "";
    const { out, bps } = taskLineBreakpoints(file, args.breakpoints ?? [], this.rollout?.env);
    this.lineBps.set(file, bps);
    response.body = { breakpoints: out };
    this.applyBreakpoints();
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: [new Thread(THREAD, this.rollout ? `rollout ${this.rollout.task.id}` : "rollout")] };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse): void {
    const r = this.rollout;
    if (!r) {
      this.fail(response, "no rollout");
      return;
    }
    const frames = stackFrames(r, ...this.sources.view(r));
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  protected override sourceRequest(response: DebugProtocol.SourceResponse, args: DebugProtocol.SourceArguments): void {
    const found = this.sources.content(args.source?.sourceReference ?? args.sourceReference);
    if (found === undefined) {
      this.fail(response, "this view of the rollout is gone: open the top frame again");
      return;
    }
    response.body = { content: found, mimeType: "text/plain" };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const d = this.rollout?.debugger;
    if (!d) {
      this.fail(response, "no rollout");
      return;
    }
    const { scopes, sandboxRef } = rolloutScopes(d, this.vars, args.frameId);
    this.sandboxRef = sandboxRef;
    response.body = { scopes };
    this.sendResponse(response);
  }

  protected override async variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): Promise<void> {
    // The Sandbox scope is read on expand: it may start the sandbox, so not on every stop.
    if (args.variablesReference === this.sandboxRef)
      await this.fillSandbox(this.vars.get(this.sandboxRef)?.value as Record<string, unknown>);
    response.body = { variables: this.vars.variables(args.variablesReference) };
    this.sendResponse(response);
  }

  /** Editing the pending call: its name, the whole arguments (JSON) or one argument at any depth. */
  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    const d = this.rollout?.debugger;
    const pending = d?.pending;
    const c = this.vars.get(args.variablesReference);
    if (!d || !pending || !c?.edit) {
      this.fail(response, "only the pending tool call can be edited (pause before a tool call)");
      return;
    }
    const value = parseTyped(args.value);
    try {
      let next: unknown;
      if (c.path.length === 0 && args.name === "name") {
        if (typeof value !== "string" || !value) throw new Error("the tool name must be text");
        d.editPending(pending.arguments, value);
        next = value;
      } else if (c.path.length === 0 && args.name === "arguments") {
        d.editPending(value);
        next = value;
      } else if (c.path[0] === "arguments" || (c.path.length === 0 && args.name !== "id")) {
        const inArgs = c.path.slice(1);
        d.editPending(setAt(pending.arguments, [...inArgs, args.name], value));
        next = value;
      } else throw new Error(`'${args.name}' cannot be edited`);
      response.body = { value: preview(next), variablesReference: this.vars.ref(next, [...c.path, args.name], true) };
      this.sendResponse(response);
    } catch (e) {
      this.fail(response, (e as Error).message);
    }
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    this.resumeWith(response, (d) => d.continue());
  }
  protected override nextRequest(response: DebugProtocol.NextResponse): void {
    this.resumeWith(response, (d) => d.stepOver());
  }
  protected override stepInRequest(response: DebugProtocol.StepInResponse): void {
    this.resumeWith(response, (d) => d.stepIn());
  }
  /** Step Out: run to the next breakpoint or the end pause, like Continue. */
  protected override stepOutRequest(response: DebugProtocol.StepOutResponse): void {
    this.resumeWith(response, (d) => d.continue());
  }

  /** Answers, tells the client the thread runs again (a request sent as a custom request leaves it unaware), resumes. */
  private resumeWith(response: DebugProtocol.Response, go: (d: RolloutDebugger) => void): void {
    this.sendResponse(response);
    const d = this.rollout?.debugger;
    if (d?.state !== "paused") return;
    this.sendEvent(new ContinuedEvent(THREAD, true));
    go(d);
  }
  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.sendResponse(response);
    this.rollout?.debugger.pause();
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    await this.stopRollout();
    this.sendResponse(response);
  }
  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    await this.stopRollout();
    this.sendResponse(response);
  }

  /**
   * Watch, hover and Variables-view expressions evaluate over the debugger state (the names
   * breakpoint conditions use); in the Debug Console a line is a shell command run in the
   * sandbox, and a line starting with `=` is an expression like a watch.
   */
  protected override async evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): Promise<void> {
    const d = this.rollout?.debugger;
    if (!d) return this.fail(response, "no rollout");
    const repl = args.context === "repl" || args.context === undefined;
    if (!repl || args.expression.trimStart().startsWith("=")) {
      const expression = repl ? args.expression.trimStart().slice(1) : args.expression;
      // A hover sends the word under the mouse (in a trajectory, often a quoted JSON key): only names and paths are worth a tooltip.
      if (args.context === "hover" && !HOVER_PATH.test(expression.trim()))
        return this.fail(response, "hover shows the debugger state's names (tool, args.path, turn, …)");
      const r = evaluateExpression(expression, d.expressionScope());
      if (!r.ok) return this.fail(response, `${r.error} (expressions see ${SCOPE_NAMES})`);
      response.body = {
        result: r.value === undefined ? "undefined" : preview(r.value),
        type: Array.isArray(r.value) ? "array" : r.value === null ? "null" : typeof r.value,
        variablesReference: this.vars.ref(r.value),
      };
      return this.sendResponse(response);
    }
    try {
      const { text } = await d.evaluate(args.expression);
      response.body = { result: text, variablesReference: 0 };
      this.sendResponse(response);
    } catch (e) {
      this.fail(response, (e as Error).message);
    }
  }

  protected override async customRequest(command: string, response: DebugProtocol.Response, args: unknown): Promise<void> {
    const r = this.rollout;
    if (!r) return this.fail(response, "no rollout");
    const d = r.debugger;
    try {
      if (command === "editPendingCall") {
        const a = EditPendingCallArgs.safeParse(args);
        if (!a.success) throw new Error(`editPendingCall: ${firstIssue(a.error)}`);
        response.body = d.editPending(a.data.arguments, a.data.name);
      } else if (command === "fork") {
        const a = ForkArgs.safeParse(args);
        if (!a.success) throw new Error(firstIssue(a.error));
        response.body = a.data.mode === "run" ? await this.host.fork(r, a.data.policy) : await this.host.forkSession(r, a.data.policy);
      } else if (command === "state") {
        response.body = {
          state: d.state,
          pause: d.pauseInfo ? { ...d.pauseInfo, breakpoint: d.pauseInfo.breakpoint?.text } : null,
          pending: d.pending ?? null,
          reward: d.reward,
          file: d.file,
          turns: d.turns.length,
        };
      } else return super.customRequest(command, response, args);
      this.sendResponse(response);
    } catch (e) {
      this.fail(response, (e as Error).message);
    }
  }

  private async fillSandbox(into: Record<string, unknown>): Promise<void> {
    try {
      const sb = await this.rollout!.debugger.sandbox();
      Object.assign(into, { id: sb.id, backend: sb.backend, workdir: sb.workdir });
    } catch (e) {
      into.state = (e as Error).message;
    }
  }

  private allBreakpoints(): Breakpoint[] {
    return [...this.functionBps, ...[...this.lineBps.values()].flat()];
  }

  private applyBreakpoints(): void {
    if (this.rollout) this.rollout.debugger.breakpoints = this.allBreakpoints();
  }

  private async stopRollout(): Promise<void> {
    const r = this.rollout;
    if (!r) return;
    if (r.debugger.state === "idle") this.configured?.();
    // The rollout ends `cancelled` and closes its sandbox; Stop answers once it has, or after
    // STOP_WAIT_MS with the closing left to finish in the background (a wedged engine must not hang the editor).
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([r.debugger.stop().catch(() => undefined), waited]);
    clearTimeout(timer);
    this.finish();
  }

  private finished = false;
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unlive?.();
    void this.rollout?.dispose();
    this.sendEvent(new TerminatedEvent());
  }

  private out(text: string, category: string): void {
    this.sendEvent(new OutputEvent(text, category));
  }

  private fail<T extends DebugProtocol.Response>(response: Reply<T>, message: string): void {
    this.sendErrorResponse(response, { id: 1001, format: message.replace(/[{}]/g, (c) => (c === "{" ? "(" : ")")), showUser: true });
  }
}

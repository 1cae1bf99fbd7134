import type { ChatMessage } from "../policy/types";
import type { PendingToolCall, RolloutHooks, RolloutResult, RolloutResume, RunRolloutOptions } from "../rollout/rollout-types";
import { runRollout } from "../rollout/run-rollout";
import type { ExecResult, Sandbox } from "../model/sandbox";
import type { TrajectoryEvent } from "../schema/trajectory";
import { afterObservationHit, atEndHit, type BreakContext, type Breakpoint, beforeToolHit } from "./breakpoints";
import { forkState } from "./fork-state";

export type DebugState = "idle" | "running" | "paused" | "ended";
/** Why the rollout is paused: the DAP `stopped` reasons, plus `end` (scored, sandbox still live). */
export type PauseReason = "entry" | "step" | "breakpoint" | "pause" | "exception" | "end";
/** Where in the agent loop it is paused. */
export type PausePoint = "policy" | "tool" | "observation" | "end";

export interface PauseInfo {
  reason: PauseReason;
  point: PausePoint;
  turn: number;
  breakpoint?: Breakpoint;
  /** One line for the user: "before bash (turn 2)", "reward 0.50 (hidden-check 0)". */
  description: string;
}

type ObservationEvent = Extract<TrajectoryEvent, { type: "observation" }>;
type RewardEvent = Extract<TrajectoryEvent, { type: "reward" }>;
type ToolCallEvent = Extract<TrajectoryEvent, { type: "tool_call" }>;

/** One agent turn as the call stack shows it; `line` is the trajectory line (1-based) of its assistant message. */
export interface DebugTurn {
  turn: number;
  line: number;
  content: string | null;
  calls: ToolCallEvent[];
  observations: ObservationEvent[];
}

export interface RolloutDebuggerOptions extends Omit<RunRolloutOptions, "hooks" | "signal"> {
  breakpoints?: Breakpoint[];
  /** Pause before every policy call too (Step Into does it once). */
  pauseBeforePolicy?: boolean;
  /** Pause before the first policy call. */
  stopOnEntry?: boolean;
  /** Pause once scored, before the sandbox closes, so the reward can be read (default true). */
  pauseAtEnd?: boolean;
}

type Listener<T> = (value: T) => void;

/**
 * Runs one rollout under a debugger: pauses before tool calls (stepping, breakpoints),
 * before policy calls on request, after observations (observation/error breakpoints) and
 * at the end with the reward; while paused the pending call may be edited, the sandbox
 * inspected (`evaluate`) or the state forked into a rollout with another policy.
 * It drives the rollout's Episode through its hooks (setUp at reset, before/after each tool
 * call its step plays, beforeClose once it is scored) and the policy loop's beforePolicyCall,
 * so a debugged rollout is played and scored exactly as `rlenv run` plays and scores it.
 */
export class RolloutDebugger {
  private _state: DebugState = "idle";
  private _pause: PauseInfo | undefined;
  private mode: "run" | "step" | "stepIn" = "run";
  private pauseRequested = false;
  private release: (() => void) | undefined;
  private readonly abort = new AbortController();
  private sandboxFn: (() => Promise<Sandbox>) | undefined;
  private domainStateFn: (() => Promise<unknown>) | undefined;
  private sandboxClosed = false;
  private liveMessages: readonly ChatMessage[] = [];
  private _pending: PendingToolCall | undefined;
  private entered = false;
  private turnNow = 0;
  private result: Promise<RolloutResult> | undefined;
  private readonly pausedListeners: Listener<PauseInfo>[] = [];
  private readonly endedListeners: Listener<RolloutResult>[] = [];
  private readonly eventListeners: Listener<TrajectoryEvent>[] = [];
  breakpoints: Breakpoint[];
  readonly events: TrajectoryEvent[] = [];
  readonly turns: DebugTurn[] = [];
  lastObservation: ObservationEvent | undefined;
  reward: RewardEvent | null = null;
  status: { status: string; reason?: string } | undefined;

  constructor(readonly options: RolloutDebuggerOptions) {
    this.breakpoints = options.breakpoints ?? [];
  }

  get state(): DebugState {
    return this._state;
  }
  get pauseInfo(): PauseInfo | undefined {
    return this._state === "paused" ? this._pause : undefined;
  }
  /** The tool call about to run (paused before a tool call), else undefined. */
  get pending(): PendingToolCall | undefined {
    return this._state === "paused" && this._pause?.point === "tool" ? this._pending : undefined;
  }
  get messages(): readonly ChatMessage[] {
    return this.liveMessages;
  }
  get file(): string {
    return this.options.file;
  }

  onPaused(l: Listener<PauseInfo>): void {
    this.pausedListeners.push(l);
  }
  onEnded(l: Listener<RolloutResult>): void {
    this.endedListeners.push(l);
  }
  onEvent(l: Listener<TrajectoryEvent>): void {
    this.eventListeners.push(l);
  }

  /** Starts the rollout (once); resolves when it has ended, whatever happened. */
  start(): Promise<RolloutResult> {
    if (this.result) return this.result;
    this._state = "running";
    const { breakpoints: _b, pauseBeforePolicy: _p, stopOnEntry: _s, pauseAtEnd: _e, ...run } = this.options;
    this.result = runRollout({ ...run, signal: this.abort.signal, hooks: this.hooks() }).then((r) => {
      this._state = "ended";
      this.sandboxClosed = true;
      for (const l of this.endedListeners) l(r);
      return r;
    });
    return this.result;
  }

  /** Runs to the next breakpoint or the end. */
  continue(): void {
    this.resume("run");
  }
  /** Runs one turn: to the next tool call (or the end). */
  stepOver(): void {
    this.resume("step");
  }
  /** Like stepOver, and pauses before the next policy call too. */
  stepIn(): void {
    this.resume("stepIn");
  }
  /** Pauses at the next pause point (the running tool call or policy request finishes first). */
  pause(): void {
    if (this._state === "running") this.pauseRequested = true;
  }
  /** Aborts the rollout: the trajectory ends `cancelled` and the sandbox closes. */
  async stop(): Promise<RolloutResult | undefined> {
    if (!this.result) {
      this._state = "ended";
      return undefined;
    }
    if (this._state !== "ended") this.abort.abort(new Error("stopped in the debugger"));
    this.mode = "run";
    const r = this.release;
    this.release = undefined;
    r?.();
    return this.result;
  }

  /** Replaces the pending call's arguments (and name); the trajectory marks the call edited. */
  editPending(args: unknown, name?: string): PendingToolCall {
    const p = this.pending;
    if (!p)
      throw new Error(
        this._state === "paused"
          ? `there is no pending tool call while paused at ${this._pause?.point}`
          : "the rollout is not paused before a tool call",
      );
    if (typeof args !== "object" || args === null || Array.isArray(args))
      throw new Error("the tool call's arguments must be a JSON object");
    this._pending = { ...p, arguments: args, ...(name ? { name } : {}) };
    return this._pending;
  }

  /** The rollout's sandbox (started on first use); refused once it has closed. */
  sandbox(): Promise<Sandbox> {
    if (this.sandboxClosed || this._state === "ended") return Promise.reject(new Error("the rollout has ended: its sandbox is closed"));
    if (!this.sandboxFn) return Promise.reject(new Error("the rollout has not started its agent loop yet"));
    return this.sandboxFn();
  }

  /** Runs a shell command in the sandbox (the Debug Console); output and a non-zero exit are told. */
  async evaluate(command: string, timeoutMs = 30_000): Promise<{ text: string; result: ExecResult }> {
    if (!command.trim()) throw new Error("nothing to run: type a shell command");
    const sb = await this.sandbox();
    const result = await sb.exec(command, { timeoutMs });
    const out = `${result.stdout}${result.stderr}`;
    const tail = result.status !== "ok" ? `[${result.reason ?? result.status}]` : result.exitCode !== 0 ? `[exit ${result.exitCode}]` : "";
    return { text: [out.replace(/\n$/, ""), tail].filter(Boolean).join("\n"), result };
  }

  /**
   * What watch and hover expressions (and `=` in the Debug Console) see: the names the
   * breakpoint conditions use — the pending `tool`/`args` (or the last observation's tool),
   * `turn`, `observation`, `status`, `reward`, `components` — plus `messages` and `point`.
   */
  expressionScope(): BreakContext & { messages: ChatMessage[]; point: PausePoint | null; error: boolean | null } {
    const pending = this.pending;
    const obs = this.lastObservation;
    const text = obs
      ? typeof obs.output === "string"
        ? obs.output
        : obs.output.map((p) => (p.type === "text" ? p.text : "")).join("")
      : undefined;
    const call = pending ? { tool: pending.name, args: pending.arguments } : obs ? { tool: obs.name } : {};
    return {
      ...call,
      turn: this.turnNow,
      ...(text !== undefined ? { observation: text } : {}),
      error: obs ? obs.status !== "ok" || (obs.exit_code ?? 0) !== 0 : null,
      ...(this.status ? { status: this.status.status } : {}),
      reward: this.reward?.total ?? null,
      components: Object.fromEntries((this.reward?.components ?? []).map((c) => [c.name, c.score])),
      messages: [...this.liveMessages],
      point: this.pauseInfo?.point ?? null,
    };
  }

  /**
   * A new rollout (not started) that continues from here with another policy: the sandbox's
   * workdir changes, the conversation so far and the domain's state (a scene) are copied;
   * its trajectory says where it came from.
   */
  async fork(o: Pick<RolloutDebuggerOptions, "policy" | "file" | "rolloutId"> & Partial<RolloutDebuggerOptions>): Promise<RolloutDebugger> {
    if (this._state !== "paused") throw new Error("fork a rollout while it is paused");
    // Once scored, the verifier's hidden files are in the workdir: a fork would hand them to the next policy.
    if (this._pause?.point === "end") throw new Error("the rollout has been scored: fork it while paused before its end");
    const sb = await this.sandbox();
    const state = await forkState(sb, this.liveMessages);
    // The domain's in-memory state (a scene) as it is now, dropped calls' effects included, like the files'.
    const domain = await this.domainStateFn?.();
    const resume: RolloutResume = {
      ...state,
      ...(domain !== undefined ? { domain } : {}),
      from: { rollout_id: this.options.rolloutId, file: this.options.file, turn: state.turn },
    };
    const { breakpoints: _b, stopOnEntry: _s, pauseBeforePolicy: _p, resume: _r, ...base } = this.options;
    return new RolloutDebugger({ ...base, pauseAtEnd: false, ...o, resume });
  }

  private resume(mode: "run" | "step" | "stepIn"): void {
    if (this._state !== "paused") return;
    this.mode = mode;
    const r = this.release;
    this.release = undefined;
    r?.();
  }

  private async wait(info: PauseInfo): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.pauseRequested = false;
    this._pause = info;
    this._state = "paused";
    const released = new Promise<void>((resolve) => {
      this.release = resolve;
    });
    for (const l of this.pausedListeners) l(info);
    await released;
    if (this._state === "paused") this._state = "running";
  }

  private hooks(): RolloutHooks {
    return {
      onEvent: (e) => this.record(e),
      setUp: ({ domainState }) => {
        this.domainStateFn = domainState;
      },
      beforePolicyCall: async ({ turn, messages, sandbox }) => {
        this.sandboxFn = sandbox;
        this.liveMessages = messages;
        this.turnNow = turn;
        const first = !this.entered;
        this.entered = true;
        const at = `before the policy call of turn ${turn}`;
        if (first && this.options.stopOnEntry) return this.wait({ reason: "entry", point: "policy", turn, description: at });
        if (this.pauseRequested) return this.wait({ reason: "pause", point: "policy", turn, description: at });
        if (this.mode === "stepIn" || this.options.pauseBeforePolicy)
          return this.wait({ reason: "step", point: "policy", turn, description: at });
      },
      beforeToolCall: async (call, sandbox) => {
        this.sandboxFn = sandbox;
        this._pending = call;
        const ctx: BreakContext = { tool: call.name, args: call.arguments, turn: this.turnNow };
        const at = `before ${call.name} (turn ${this.turnNow})`;
        const bp = beforeToolHit(this.breakpoints, ctx, this.options.task.source);
        if (this.pauseRequested) await this.wait({ reason: "pause", point: "tool", turn: this.turnNow, description: at });
        else if (bp)
          await this.wait({
            reason: "breakpoint",
            point: "tool",
            turn: this.turnNow,
            breakpoint: bp,
            description: `${at}: breakpoint ${bp.text}`,
          });
        else if (this.mode !== "run") await this.wait({ reason: "step", point: "tool", turn: this.turnNow, description: at });
        const next = this._pending;
        this._pending = undefined;
        return next;
      },
      afterToolCall: async (call, obs) => {
        this.lastObservation = obs;
        const text = typeof obs.output === "string" ? obs.output : obs.output.map((p) => (p.type === "text" ? p.text : "")).join("");
        const ctx = {
          tool: call.name,
          args: call.arguments,
          turn: this.turnNow,
          observation: text,
          error: obs.status !== "ok" || (obs.exit_code ?? 0) !== 0,
        };
        const bp = afterObservationHit(this.breakpoints, ctx);
        const at = `after ${call.name} (turn ${this.turnNow})`;
        if (bp)
          return this.wait({
            reason: "breakpoint",
            point: "observation",
            turn: this.turnNow,
            breakpoint: bp,
            description: `${at}: breakpoint ${bp.text}`,
          });
        if (this.pauseRequested) return this.wait({ reason: "pause", point: "observation", turn: this.turnNow, description: at });
      },
      beforeClose: async ({ status, reason, reward }) => {
        this.reward = reward;
        this.status = { status, ...(reason ? { reason } : {}) };
        if (this.abort.signal.aborted) return;
        const components = Object.fromEntries((reward?.components ?? []).map((c) => [c.name, c.score]));
        const summary = reward
          ? `reward ${reward.total.toFixed(2)} (${reward.components.map((c) => `${c.name} ${c.score}`).join(", ")})`
          : `${status}${reason ? `: ${reason}` : ""}`;
        const bp = atEndHit(this.breakpoints, { status, reward: reward?.total ?? null, components, turn: this.turnNow });
        const base = { point: "end" as const, turn: this.turnNow };
        if (bp)
          return this.wait({ ...base, reason: "breakpoint", breakpoint: bp, description: `ended, ${summary}: breakpoint ${bp.text}` });
        if (status === "error") return this.wait({ ...base, reason: "exception", description: `rollout failed: ${reason ?? "error"}` });
        if (this.options.pauseAtEnd ?? true) return this.wait({ ...base, reason: "end", description: `ended ${status}, ${summary}` });
      },
    };
  }

  private record(e: TrajectoryEvent): void {
    this.events.push(e);
    const line = this.events.length;
    if (e.type === "message" && e.role === "assistant" && e.turn !== undefined) {
      this.turns.push({
        turn: e.turn,
        line,
        content: typeof e.content === "string" || e.content === null ? e.content : "",
        calls: [],
        observations: [],
      });
    } else if (e.type === "tool_call") this.turns.at(-1)?.calls.push(e);
    else if (e.type === "observation") this.turns.at(-1)?.observations.push(e);
    for (const l of this.eventListeners) l(e);
  }
}

import { servedRollout } from "./served-rollout";
import { forkState } from "../debug/fork-state";
import type { LoadedTask } from "../model/environment";
import type { Sandbox } from "../model/sandbox";
import type { ChatMessage, PolicyReply } from "../policy/types";
import type { RolloutResult, RolloutResume } from "../rollout/rollout-types";
import { runRollout } from "../rollout/run-rollout";
import type { TrajectoryEvent } from "../schema/trajectory";
import { ClientTurns } from "./client-turns";
import type { ServedEnvironment } from "./serve-context";
import { ServeError, type ServedObservation, type ServedScore, type ServedToolCall } from "./session-types";

export interface PlayOptions {
  served: ServedEnvironment;
  task: LoadedTask;
  episodeId: string;
  protocol: string;
  seed?: number;
  resume?: RolloutResume;
  /** The server's shutdown: it cancels the episode too. */
  signal: AbortSignal;
}

/**
 * One served episode: the engine's own loop (runRollout) playing in the background with the
 * client as its policy (ClientTurns). An observation is read whenever the loop waits for the
 * client's next turn or has ended (scored and closed, its trajectory written).
 */
export class ServedPlay {
  readonly turns: ClientTurns;
  readonly ended: Promise<RolloutResult | Error>;
  readonly file: string;
  readonly rolloutId: string;
  private readonly controller = new AbortController();
  /** The episode's own message list (the loop's, shared): what the agent has been told so far. */
  private messages: readonly ChatMessage[] = [];
  private seen = 0;
  private sandbox: (() => Promise<Sandbox>) | null = null;
  private domainState: (() => Promise<unknown>) | null = null;
  /** Each answered tool call's name and whether it failed, by call id (from its observation event: no scan of the messages per step). */
  private readonly toolCalls = new Map<string, { name: string; isError: boolean }>();
  private result: RolloutResult | Error | null = null;
  stepCount = 0;

  constructor(readonly o: PlayOptions) {
    this.turns = new ClientTurns(o.protocol);
    const signal = AbortSignal.any([this.controller.signal, o.signal]);
    const options = servedRollout(o.served, o.task, {
      policy: this.turns,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      signal,
      ...(o.resume ? { resume: o.resume } : {}),
      hooks: {
        beforePolicyCall: async (info) => {
          this.messages = info.messages;
          this.sandbox = info.sandbox;
        },
        setUp: (live) => {
          this.domainState = live.domainState;
        },
        onEvent: (e: TrajectoryEvent) => {
          if (e.type === "observation")
            this.toolCalls.set(e.tool_call_id, { name: e.name, isError: e.status !== "ok" || e.error !== undefined });
        },
      },
    });
    this.file = options.file;
    this.rolloutId = options.rolloutId;
    this.ended = runRollout(options).then(
      (r) => {
        this.result = r;
        return r;
      },
      // Only the runs disk fails out of runRollout: nothing more can be recorded for this episode.
      (e: unknown) => {
        this.result = e instanceof Error ? e : new Error(String(e));
        return this.result;
      },
    );
  }

  /** The loop has ended: scored (or not) and its trajectory closed. */
  get over(): boolean {
    return this.result !== null;
  }

  /** Resolves once the loop waits for the client's first turn, or has ended. */
  ready(): Promise<void> {
    return this.turns.waitForTurn(this.ended);
  }

  /** The conversation so far counts as said (a fork's: its client asks for it with observe(true)). */
  skipHistory(): void {
    this.seen = this.messages.length;
  }

  /** Waits until the loop asks for the client's turn or ends, then says what is new (or, `whole`, everything said). */
  async observe(whole = false): Promise<ServedObservation> {
    await this.turns.waitForTurn(this.ended);
    const ended = this.turns.waitingTurn === null ? await this.ended : null;
    const fresh = this.messages.slice(whole ? 0 : this.seen);
    this.seen = this.messages.length;
    const { served, task, episodeId } = this.o;
    const observation: ServedObservation = {
      episode_id: episodeId,
      environment: served.name,
      task_id: task.id,
      // The client's own replies are not echoed back, but a fork's history carries the turns before it.
      messages: fresh.filter((m) => m.role !== "tool" && (whole || m.role !== "assistant")),
      tools: served.tools,
      tool_results: fresh.flatMap((m) =>
        m.role === "tool"
          ? [
              {
                tool_call_id: m.tool_call_id,
                name: this.toolCalls.get(m.tool_call_id)?.name ?? "",
                content: textOf(m.content),
                is_error: this.toolCalls.get(m.tool_call_id)?.isError ?? false,
              },
            ]
          : [],
      ),
      turn: this.turns.waitingTurn ?? (this.result instanceof Error ? 0 : (this.result?.turns ?? 0)),
      max_turns: task.max_turns ?? served.env.manifest.max_turns,
      done: ended !== null,
      trajectory: this.file,
    };
    if (ended !== null) observation.score = scoreOf(ended);
    return observation;
  }

  /** The client's turn: its tool calls (and any text the model wrote with them). */
  async step(calls: ServedToolCall[], text: string | null): Promise<ServedObservation> {
    this.answer({
      content: text,
      tool_calls: calls.map((c, i) => ({
        id: c.id ?? `call_${this.turns.waitingTurn ?? 0}_${i}`,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      })),
      latencyMs: 0,
    });
    this.stepCount++;
    return this.observe();
  }

  /** The agent's final word: a reply with no tool call ends the turns, and the episode is scored. */
  async finish(text: string | null): Promise<ServedObservation> {
    this.answer({ content: text, tool_calls: [], latencyMs: 0 });
    this.stepCount++;
    return this.observe();
  }

  /** The state a fork continues from: files, the conversation, the domain's state; the loop must be waiting. */
  async forkPoint(): Promise<RolloutResume> {
    if (this.turns.waitingTurn === null || !this.sandbox)
      throw new ServeError("no_episode", "fork an episode that is open and waiting for a step");
    const state = await forkState(await this.sandbox(), this.messages);
    const domain = await this.domainState?.();
    return {
      ...state,
      ...(domain !== undefined ? { domain } : {}),
      from: { rollout_id: this.rolloutId, file: this.file, turn: state.turn },
    };
  }

  /** Cancels the episode (scored as it stands: cancelled, never a reward) and waits for its trajectory to close. */
  async cancel(): Promise<void> {
    this.controller.abort(new Error("the client closed the episode"));
    await this.ended;
  }

  private answer(reply: PolicyReply): void {
    if (this.turns.answer(reply)) return;
    if (this.result) throw new ServeError("no_episode", "the episode is over: reset to play another");
    throw new ServeError("invalid", "a step of this session is still being played: wait for its observation");
  }
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join("");
}

/** The score of an ended loop: its reward, or why there is none (the runs disk failing is the machinery's). */
export function scoreOf(ended: RolloutResult | Error): ServedScore {
  if (ended instanceof Error) return { status: "error", reason: ended.message, reward: null, components: [], infra: true };
  return {
    status: ended.status,
    ...(ended.reason ? { reason: ended.reason } : {}),
    reward: ended.reward,
    components: ended.components ?? [],
    infra: ended.infra,
  };
}

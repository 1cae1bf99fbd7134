import type { ChatMessage, ToolSpec } from "../policy/types";
import type { RewardComponent, RolloutStatus } from "../schema/trajectory";

/**
 * What `rlenv serve` keeps per client, whatever protocol it speaks (OpenEnv, NeMo Gym): one
 * served session plays one episode at a time on the one episode engine (runRollout's own loop,
 * driven by the client's actions: see served-session.ts), so a served episode scores exactly
 * what `rlenv run` scores for the same actions. The protocol modules translate their wire
 * messages to these calls and these results back; they never touch an Episode directly.
 */

/** How a client picks the task a reset plays: by id, else by seed (the same seed, the same task), else the next in turn. */
export interface ResetRequest {
  /** The environment's name, when the server serves several (else the one it serves). */
  environment?: string;
  task_id?: string;
  seed?: number;
  /** The client's own id for the episode (OpenEnv's `episode_id`); one is made when absent. */
  episode_id?: string;
}

/** One tool call of the agent: `arguments` as an object or as the raw JSON text a model wrote. */
export interface ServedToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  /** The caller's id for the call (a chat tool_call id); one is made when absent. */
  id?: string;
}

/** The reward of a finished episode, or why it has none (an infra error is never a reward). */
export interface ServedScore {
  status: RolloutStatus;
  reason?: string;
  /** Null when not scored (cancelled, an error of the machinery or of the verifier). */
  reward: number | null;
  components: RewardComponent[];
  /** The machinery failed it (sandbox lost, judge server down): a protocol error, never a reward. */
  infra: boolean;
}

/** What the agent sees after a reset or a step. */
export interface ServedObservation {
  episode_id: string;
  environment: string;
  task_id: string;
  /** The messages said since the last observation: at reset the system and user prompts; a later stage's prompt. */
  messages: ChatMessage[];
  /** The tools the agent may call (never reset/step/state). */
  tools: readonly ToolSpec[];
  /** The text each tool call of this step answered, in order (empty at reset). */
  tool_results: Array<{ tool_call_id: string; name: string; content: string; is_error: boolean }>;
  /** Turns taken so far, and the task's limit. */
  turn: number;
  max_turns: number;
  /** True once the episode is over (the agent submitted, replied without a tool call, ran out of turns or time). */
  done: boolean;
  /** Present with `done`: the score (its components travel in the observation too). */
  score?: ServedScore;
  /** The trajectory file this episode writes. */
  trajectory: string;
}

/** OpenEnv's `State`: the episode's id and steps, plus what rlenv knows of it. */
export interface ServedState {
  episode_id: string | null;
  step_count: number;
  environment: string | null;
  task_id: string | null;
  done: boolean;
  /** The episode this one was forked from (fork), if any. */
  forked_from?: { episode_id: string; turn: number };
}

/** The errors a protocol turns into its own error replies; `kind` is what /metrics counts. */
export type ServeErrorKind =
  | "capacity" // --max-sessions reached
  | "invalid" // a malformed message or argument: the session stays usable
  | "not_found" // no such task, session or tool
  | "no_episode" // step/state before reset, or after the episode ended
  | "infra" // the sandbox or a service the episode needs failed: never a reward
  | "unauthorized"
  | "closed"; // the server is shutting down

export class ServeError extends Error {
  constructor(
    readonly kind: ServeErrorKind,
    message: string,
    /** The field of the request that was wrong, when one was. */
    readonly field?: string,
    /** Capacity errors: how many sessions are open, and the limit. */
    readonly capacity?: { active: number; max: number },
  ) {
    super(message);
    this.name = "ServeError";
  }
}

/** One client's session: see served-session.ts for the implementation. */
export interface SessionHandle {
  readonly id: string;
  /** Starts a new episode (closing any open one, scored as it stands: cancelled). */
  reset(req: ResetRequest): Promise<ServedObservation>;
  /** Plays tool calls of one agent turn; ends the episode when one submits, or at max turns. */
  step(calls: ServedToolCall[], assistantText?: string | null): Promise<ServedObservation>;
  /** Ends the turn loop with the agent's final word (a reply without a tool call), then scores: NeMo Gym's /verify. */
  finish(finalText: string | null): Promise<ServedObservation>;
  state(): ServedState;
  /** N independent sessions continuing from this one's exact state (files, messages, a scene): see fork. */
  fork(n: number): Promise<SessionHandle[]>;
  /** A forked session's first observation: the conversation so far (assistant turns included) and the tools. */
  forkObservation(): Promise<ServedObservation>;
  close(): Promise<void>;
}

import type { DomainPlugin } from "../model/domain";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { ChatMessage, Policy, PolicyPrepareContext, PolicyReply, ToolSpec } from "../policy/types";
import type { Sandbox, SandboxProvider } from "../model/sandbox";
import type { JudgeUsage, RewardComponent, RolloutStatus, TrajectoryEvent, Usage } from "../schema/trajectory";
import type { Toolset } from "./toolset";

/** A tool call as the debugger sees it before it runs; `arguments` is the parsed object, or the raw text when it was not JSON. */
export interface PendingToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** What an episode calls as it plays (the debugger's pauses, observers): see Episode. */
export interface EpisodeHooks {
  /** Before each tool call runs; returns the call to run, possibly edited. */
  beforeToolCall?(call: PendingToolCall, sandbox: () => Promise<Sandbox>): Promise<PendingToolCall>;
  /** After each tool call ran, with its observation as written (observation breakpoints). */
  afterToolCall?(call: PendingToolCall, observation: Extract<TrajectoryEvent, { type: "observation" }>): Promise<void>;
  /** Once scored (or failed), before the sandbox closes: the debugger's last pause, sandbox still live. */
  beforeClose?(info: {
    status: RolloutStatus;
    reason?: string;
    reward: Extract<TrajectoryEvent, { type: "reward" }> | null;
  }): Promise<void>;
  /** Every event as it is written. */
  onEvent?(e: TrajectoryEvent): void;
  /** Once the domain is set up: reads its in-memory state for a fork (see DomainPlugin.forkState). */
  setUp?(live: { domainState(): Promise<unknown> }): void;
}

/** Pause points for the debugger and observers: the episode's, and the policy loop's own. */
export interface RolloutHooks extends EpisodeHooks {
  /** Before each policy request; may wait (a paused debugger). */
  beforePolicyCall?(info: { turn: number; messages: readonly ChatMessage[]; sandbox: () => Promise<Sandbox> }): Promise<void>;
}

/** A rollout continued from another one's paused state (the debugger's fork). */
export interface RolloutResume {
  /** The conversation so far, replayed to the new policy as its history. */
  messages: ChatMessage[];
  /** The first turn number of the new rollout (turns already taken count against max_turns). */
  turn: number;
  /** Workdir files to write over the task's seed files; null deletes the file. */
  files: Record<string, string | Buffer | null>;
  /** The domain's state at the fork (a scene), for DomainPlugin.resumeState. */
  domain?: unknown;
  from: { rollout_id: string; file: string; turn: number };
}

/** The scheduler's view into a rollout: the policy-request limit and the sandbox clock. */
export interface RolloutMeter {
  policyCall(fn: () => Promise<PolicyReply>, signal: AbortSignal): Promise<PolicyReply>;
  sandboxBusy?(ms: number): void;
}

export interface RunRolloutOptions {
  env: Environment;
  task: LoadedTask;
  policy: Policy;
  sandboxProvider: SandboxProvider;
  /** The trajectory file to append to. */
  file: string;
  runId: string;
  rolloutId: string;
  sample?: number;
  seed?: number;
  /** The domain plugin; looked up in the registry when undefined, none when null. */
  domain?: DomainPlugin | null;
  /** Precomputed by the scheduler so every rollout shares one tool set. */
  toolset?: Toolset;
  signal?: AbortSignal;
  hooks?: RolloutHooks;
  meter?: RolloutMeter;
  /** Continue a forked rollout from this state instead of the task's start. */
  resume?: RolloutResume;
  /** Earlier tries of this rollout that the infrastructure failed (files relative to the run folder): recorded in `start`. */
  previousAttempts?: Array<{ file: string; reason: string }>;
}

/** Who plays an episode, as its start event records it (a Policy is one; so is a trainer behind a server). */
export interface EpisodePlayer {
  kind: string;
  model?: string;
  params?: Record<string, unknown>;
}

/**
 * One episode of a task in a sandbox (see Episode): what RunRolloutOptions holds less the
 * policy's decisions, which the episode's driver makes. Without `file` the trajectory is kept
 * in memory only (a caller with no run folder).
 */
export interface EpisodeOptions extends Omit<RunRolloutOptions, "policy" | "file" | "hooks" | "meter"> {
  policy: EpisodePlayer;
  file?: string;
  hooks?: EpisodeHooks;
  meter?: Pick<RolloutMeter, "sandboxBusy">;
}

export interface RolloutResult {
  rolloutId: string;
  file: string;
  task: string;
  sample: number;
  status: RolloutStatus;
  reason?: string;
  /** Null when the rollout was not scored (cancelled, error). */
  reward: number | null;
  /** Why it fell short of full marks, in one line: the failing components with their reasons (see reward/failure.ts). */
  failure?: string;
  /** The reward components, when it was scored. */
  components?: RewardComponent[];
  /** The distinct hack signals its submission raised (none: absent), and what the environment did with them. */
  hackSignals?: string[];
  hackAction?: "flag" | "zero";
  /** An infrastructure failure (sandbox start or lost, policy server down): worth retrying, never scored. */
  infra: boolean;
  /** Tries it took (the scheduler's count: earlier ones failed on the infrastructure). */
  attempts?: number;
  answer: unknown;
  turns: number;
  usage: Usage;
  timings: { total_ms: number; policy_ms: number; sandbox_ms: number; verify_ms: number };
  /** Turns whose prompt tokens did not continue the previous turn's (set when the policy reported tokens). */
  driftTurns?: number;
  /** Seconds it held sandboxes (its own and judging ones, from the ask to the hand-back): what it cost the machine. Absent when read back from a trajectory written before rlenv recorded it. */
  sandboxSeconds?: number;
  /** Judge model requests its verifiers made and their tokens (policy tokens are in `usage`). */
  judge?: JudgeUsage;
  /** The environment's reward definition it was scored by (reward/reward-hash.ts). */
  rewardHash?: string;
}

export type ObservationEvent = Extract<TrajectoryEvent, { type: "observation" }>;

/** What a policy (or whoever plays) may do to the sandbox before the first turn: Policy.prepare. */
export type Preparer = (ctx: PolicyPrepareContext) => Promise<void>;

/** The episode after reset: the prompts said so far and the tools the agent may call. */
export interface EpisodeStart {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
}

/** One tool call played: its observation as written, and whether the episode is over (the agent submitted). */
export interface StepResult {
  observation: ObservationEvent;
  done: boolean;
}

/** How the episode was scored: its status (an infra error is never a reward) and, when scored, the reward. */
export interface EpisodeScore {
  status: RolloutStatus;
  reason?: string;
  reward: number | null;
  components?: RewardComponent[];
  infra: boolean;
}

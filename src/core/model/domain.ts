import type { Environment } from "./environment";
import type { LoadedTask } from "./environment";
import type { Problem } from "./problem";
import type { Sandbox } from "./sandbox";
import type { Artifacts, ContentPart, RewardComponent, TrajectoryEvent } from "../schema/trajectory";
import type { VerifierConfig } from "../schema/verifier";

/** Per-rollout state shared by a domain's tools and verifiers (the scene, the document index…). */
export type RolloutState = Map<string, unknown>;

export interface ToolContext {
  env: Environment;
  task: LoadedTask;
  /**
   * The rollout's sandbox, acquired on first use: domains whose tools run in-process
   * (builtin scenes, document search) never pay for one.
   */
  sandbox(): Promise<Sandbox>;
  state: RolloutState;
  signal: AbortSignal;
  /** Milliseconds allowed for this call (the step timeout). */
  timeoutMs: number;
}

export interface ToolResult {
  /** Shown to the policy (truncated by the engine to tool_output_limit). */
  output: string | ContentPart[];
  exitCode?: number | null;
  status?: "ok" | "error" | "timeout" | "oom" | "killed";
  /** A tool error the agent can read and recover from (bad arguments, missing file). */
  error?: string;
  artifacts?: Artifacts;
  /** Set by submit tools: the rollout ends after this call; `answer` is what the verifiers grade. */
  submit?: { answer?: unknown };
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object, shown to the policy. */
  parameters: Record<string, unknown>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

export interface VerifyContext {
  env: Environment;
  task: LoadedTask;
  sandbox(): Promise<Sandbox>;
  state: RolloutState;
  /** The submitted answer (from submit / submit_report), if any. */
  answer: unknown;
  /** Events so far, for verifiers that look at the process (citations, tool use). */
  events: readonly TrajectoryEvent[];
  signal: AbortSignal;
  timeoutMs: number;
}

/** A verifier turns the final state into a score in [0, 1]. Throwing is recorded as an error and scores 0. */
export interface Verifier<C extends VerifierConfig = VerifierConfig> {
  type: C["type"];
  verify(config: C, ctx: VerifyContext): Promise<Omit<RewardComponent, "name" | "type" | "weight">>;
}

/** What a domain contributes: its tools, its verifiers, and per-rollout set-up. */
export interface DomainPlugin {
  name: string;
  tools(env: Environment): ToolDefinition[];
  verifiers?: Verifier[];
  /**
   * Work done once for the whole environment before any rollout starts (the document
   * domain parses and indexes its corpus), so that no rollout's time includes it.
   * `log` reports progress in words.
   */
  prepare?(env: Environment, log: (message: string) => void): Promise<void>;
  /** Called once per rollout after the sandbox is reset, before the first turn. */
  setup?(ctx: ToolContext): Promise<void>;
  /** Called when the rollout ends, whatever the outcome. */
  teardown?(ctx: ToolContext): Promise<void>;
  /**
   * Static problems in the domain's parts of the tasks (hidden targets, checks), positioned
   * like the loader's, for `rlenv validate` and editor diagnostics. Optional.
   */
  checkTasks?(env: Environment): Promise<Problem[]>;
  /**
   * What a fork (the debugger's) must carry besides the workdir and the conversation: the
   * domain's in-memory state of this rollout (a scene), as plain JSON; undefined when there
   * is none. A domain that keeps no such state leaves this out.
   */
  forkState?(ctx: ToolContext): Promise<unknown>;
  /** Puts a fork's saved state (from forkState) in place, after setup and before the first turn. */
  resumeState?(ctx: ToolContext, saved: unknown): Promise<void>;
}

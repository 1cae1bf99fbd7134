import { findDomain } from "../domains/registry";
import type { DomainPlugin, ToolContext } from "../model/domain";
import type { LoadedTask } from "../model/environment";
import type { ChatMessage, PolicyReply, ToolSpec } from "../policy/types";
import { meteringJudges } from "../reward/judge-meter";
import { rewardHash, taskRewardHash } from "../reward/reward-hash";
import { rewardFor } from "../reward/task-reward";
import { RunsDiskError } from "../runs/disk-error";
import type { ChatToolCall, RewardComponent, RolloutStatus, TrajectoryEvent, TrajectoryEventInput } from "../schema/trajectory";
import type { VerifierConfig } from "../schema/verifier";
import { SandboxInfraError, VerifierInfraError } from "./errors";
import { EpisodeAccount, episodeResult, type Verdict } from "./episode-account";
import { type Judgement, judgedFields, judgeRollout } from "./judging";
import type { EpisodeTrajectory } from "./memory-trajectory";
import { renderTemplate } from "../model/prompt-template";
import { classifyFailure } from "./rollout-failure";
import { RolloutScope } from "./rollout-scope";
import type { EpisodeOptions, EpisodeScore, EpisodeStart, Preparer, RolloutResult, StepResult } from "./rollout-types";
import { runToolCall } from "./tool-call";
import { buildToolset, type Toolset } from "./toolset";
import { TrajectoryLimitError } from "./trajectory-bounds";

/**
 * One episode of a task in its sandbox, played by whoever drives it: `reset` (the start event,
 * the domain, the prompts), `assistant` and `step` (an agent's reply and each tool call it
 * makes), `score` (what the agent left, judged once), `close` (the last hook, the domain's
 * teardown, the sandbox let go, `end`). The policy loop (Rollout), the debugger through it,
 * and a server for an outside trainer all drive this one object, so there is one scoring path.
 * A multi-stage task (Harbor's `[[steps]]`) is played by its variant, StagedEpisode. The task
 * and seed are the episode's own (openEpisode): a new reset(task, seed) is a new episode, with
 * its own sandbox and trajectory (a file, or memory for a caller with no run folder).
 * The sandbox, the deadline and the cancellation listener live in the RolloutScope; a failure
 * of the machinery is recorded through `fail`, never thrown (but a runs disk that fails).
 */
export class Episode implements AsyncDisposable {
  readonly scope: RolloutScope;
  readonly messages: ChatMessage[];
  /** Timings, token usage and turns, for the `end` event. */
  readonly account = new EpisodeAccount();
  protected readonly stepMs: number;
  protected readonly toolCtx: ToolContext;
  /** How it ends so far: an error until a driver says otherwise; `infra` when the machinery failed it (never a reward). */
  private readonly outcome: { status: RolloutStatus; reason: string | undefined; infra: boolean } = {
    status: "error",
    reason: undefined,
    infra: false,
  };
  private answer: unknown;
  /** Set by a submit; a multi-stage task clears it as each stage begins. */
  protected submitted = false;
  private domain: DomainPlugin | null = null;
  private toolset: Toolset | null = null;
  private isSetUp = false;
  private verdict: Verdict | null = null;

  constructor(
    protected readonly o: EpisodeOptions,
    readonly trajectory: EpisodeTrajectory,
    private readonly t0 = performance.now(),
  ) {
    this.scope = new RolloutScope({
      env: o.env,
      task: o.task,
      sandboxProvider: o.sandboxProvider,
      runId: o.runId,
      rolloutId: o.rolloutId,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.resume ? { files: o.resume.files } : {}),
    });
    this.stepMs = o.env.manifest.sandbox.timeouts.step * 1000;
    this.messages = o.resume ? [...o.resume.messages] : [];
    this.toolCtx = {
      env: o.env,
      task: o.task,
      sandbox: this.scope.sandbox,
      state: new Map<string, unknown>(),
      signal: this.scope.signal,
      timeoutMs: this.stepMs,
    };
  }

  /** The agent's signal: the rollout's deadline or the caller's cancellation (within a stage with its own timeout, that too). */
  get signal(): AbortSignal {
    return this.toolCtx.signal;
  }

  /** The turns a task allows. */
  get maxTurns(): number {
    return this.o.task.max_turns ?? this.o.env.manifest.max_turns;
  }

  /** The tools the agent may call (known once reset). */
  get tools(): readonly ToolSpec[] {
    return this.toolset?.specs ?? [];
  }

  protected emit(e: TrajectoryEventInput): TrajectoryEvent {
    const ev = this.trajectory.write(e);
    this.o.hooks?.onEvent?.(ev);
    return ev;
  }

  /** How the episode ends so far. */
  get status(): RolloutStatus {
    return this.outcome.status;
  }

  /** How the episode ends, as its driver saw it (completed, truncated, timeout). */
  finish(status: RolloutStatus, reason: string | undefined): void {
    this.outcome.status = status;
    this.outcome.reason = reason;
  }

  /** The start event, the domain set up (or resumed from a fork), the player's preparation and the first messages. */
  async reset(prepare?: Preparer): Promise<EpisodeStart> {
    const { o } = this;
    const m = o.env.manifest;
    this.domain = o.domain !== undefined ? o.domain : await findDomain(m.domain);
    const toolset = o.toolset ?? buildToolset(o.env, this.domain);
    this.toolset = toolset;
    this.emit({
      type: "start",
      run_id: o.runId,
      rollout_id: o.rolloutId,
      env: { name: m.name, hash: o.env.hash, domain: m.domain },
      task: { id: o.task.id, prompt: o.task.prompt },
      policy: {
        kind: o.policy.kind,
        ...(o.policy.model ? { model: o.policy.model } : {}),
        ...(o.policy.params ? { params: o.policy.params } : {}),
      },
      sample: o.sample ?? 0,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      sandbox: { backend: o.sandboxProvider.backend, ...(m.sandbox.image ? { image: m.sandbox.image } : {}) },
      tools: toolset.specs,
      reward_hash: rewardHash(o.env),
      task_reward_hash: taskRewardHash(o.env, o.task),
      ...(o.resume ? { forked_from: o.resume.from } : {}),
      ...(o.previousAttempts?.length ? { attempt: o.previousAttempts.length + 1, previous_attempts: o.previousAttempts } : {}),
    });
    await this.setUpDomain();
    if (prepare) {
      // What a policy does to the sandbox before the first turn (the oracle's direct writes) is sandbox time.
      const p0 = performance.now();
      const a0 = this.scope.sandboxMs;
      await prepare({ tools: toolset.specs, sandbox: this.scope.sandbox, signal: this.scope.signal, timeoutMs: this.stepMs });
      this.account.timings.sandbox_ms += performance.now() - p0 - (this.scope.sandboxMs - a0);
    }
    // A fork's history is in the trajectory it came from (start.forked_from); this file starts at the fork.
    const system = o.resume ? "" : renderTemplate(o.env.prompts.system, o.env, o.task);
    if (system.trim()) this.say("system", system);
    if (!o.resume) this.say("user", renderTemplate(o.env.prompts.user, o.env, o.task));
    return { messages: this.messages, tools: toolset.specs };
  }

  /** The domain's setup (and a fork's domain state put back), then the debugger's look at it. */
  private async setUpDomain(): Promise<void> {
    const { o, domain } = this;
    const name = o.env.manifest.domain;
    await domain?.setup?.(this.toolCtx);
    this.isSetUp = true;
    if (o.resume?.domain !== undefined) {
      if (!domain?.resumeState) throw new Error(`the fork carries ${name} state that the ${name} domain cannot take back`);
      await domain.resumeState(this.toolCtx, o.resume.domain);
    }
    o.hooks?.setUp?.({ domainState: async () => (domain?.forkState ? domain.forkState(this.toolCtx) : undefined) });
  }

  protected say(role: "system" | "user", content: string): void {
    this.messages.push({ role, content });
    this.emit({ type: "message", role, content });
  }

  /**
   * The agent's reply of turn `turn` (and how long it took to come): recorded, its tool calls
   * given ids; a reply with no tool call is the agent's final word and ends the episode.
   */
  assistant(reply: PolicyReply, turn: number, policyMs = 0): { calls: ChatToolCall[]; done: boolean } {
    const calls: ChatToolCall[] = reply.tool_calls.map((c, i) => ({ ...c, id: c.id || `call_${turn}_${i}` }));
    const tokens = this.account.reply(reply, turn, policyMs);
    this.emit({
      type: "message",
      role: "assistant",
      content: reply.content,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reply.usage ? { usage: reply.usage } : {}),
      latency_ms: reply.latencyMs,
      turn,
      ...(tokens ? { tokens } : {}),
    });
    this.messages.push({ role: "assistant", content: reply.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length > 0) return { calls, done: false };
    // A reply with no tool call is the agent's final word (the chat convention).
    this.answer = reply.content;
    this.finish("completed", "the policy replied without a tool call");
    return { calls, done: true };
  }

  /**
   * One tool call of turn `turn`: the debugger's edit, the call under its step deadline, the
   * observation; a call after a submit is recorded and answered with an error, never run.
   * A sandbox lost under it throws (record it with `fail`).
   */
  async step(call: ChatToolCall, turn: number): Promise<StepResult> {
    if (!this.toolset) throw new Error("the episode has not been reset");
    const played = await runToolCall(
      {
        toolset: this.toolset,
        toolCtx: this.toolCtx,
        scope: this.scope,
        outputLimit: this.o.env.manifest.tool_output_limit,
        hooks: this.o.hooks,
        emit: (e) => this.emit(e),
        afterSubmit: this.submitted,
        sandboxTime: (ms) => {
          this.account.timings.sandbox_ms += ms;
        },
      },
      call,
      turn,
    );
    this.messages.push({ role: "tool", tool_call_id: played.observation.tool_call_id, content: played.text });
    if (played.pending) await this.o.hooks?.afterToolCall?.(played.pending, played.observation);
    if (played.submit) {
      this.submitted = true;
      this.answer = played.submit.answer;
      this.finish("completed", "submitted");
    }
    return { observation: played.observation, done: this.submitted };
  }

  /** A throw out of play: recorded as the episode's outcome (timeout, cancelled, error, infra or not); a runs disk that failed is thrown on. */
  async fail(caught: unknown): Promise<void> {
    // The runs folder's disk, not the rollout: nothing more can be recorded, and the run stops.
    if (caught instanceof RunsDiskError) throw caught;
    // The model flooded its trajectory: it ends here and is scored on what it left, as after max_turns.
    if (caught instanceof TrajectoryLimitError) {
      this.finish("truncated", caught.message);
      return;
    }
    const failure = await classifyFailure(caught, this.scope);
    this.finish(failure.status, failure.reason);
    if (failure.error) {
      this.outcome.infra = failure.error.infra;
      this.emit({ type: "error", ...failure.error });
    }
  }

  /** The reward list scored where the environment judges (judging.ts), after the scan for hack signals. */
  protected judge(rewards: VerifierConfig[], task: LoadedTask): Promise<Judgement> {
    const ctx = {
      env: this.o.env,
      task,
      state: this.toolCtx.state,
      answer: this.answer,
      events: this.trajectory.events,
      signal: this.scope.outside ?? new AbortController().signal,
    };
    const judging = () => judgeRollout(this.scope, rewards, ctx, this.domain?.verifiers ?? [], Math.max(this.stepMs, 60_000));
    return meteringJudges(this.account.judge, judging);
  }

  /** What the agent left, judged: the task's reward list (a staged task scores its stages instead). */
  protected judgeAll(): Promise<{ total: number; components: RewardComponent[] } | Judgement> {
    return this.judge(rewardFor(this.o.env.manifest.reward, this.o.task), this.o.task);
  }

  /**
   * Scores what the agent left behind, even after max_turns or a timeout; a sandbox lost on the
   * way makes it an infra error, a reply channel written into from inside an error of the
   * model's. The rollout's deadline stops here: it ends the agent's play only.
   */
  async score(): Promise<EpisodeScore> {
    this.scope.stopDeadline();
    const played = this.outcome.status;
    if (played === "completed" || played === "truncated" || played === "timeout") {
      const v0 = performance.now();
      const a0 = this.scope.sandboxMs;
      try {
        await this.verdictOf(await this.judgeAll());
      } catch (e) {
        this.verifierFailed(e);
      }
      this.account.timings.verify_ms = performance.now() - v0 - (this.scope.sandboxMs - a0);
    }
    const { verdict } = this;
    const { status, reason, infra } = this.outcome;
    return {
      status,
      ...(reason ? { reason } : {}),
      reward: verdict?.reward ?? null,
      ...(verdict ? { components: verdict.components } : {}),
      infra,
    };
  }

  /** A score read: the reward event, unless the sandbox was lost or tampered with on the way (checked after scoring). */
  private async verdictOf(score: { total: number; components: RewardComponent[] } | Judgement): Promise<void> {
    const { scope } = this;
    // Checked after scoring: a reply channel written into from inside voids any verdict read through it (the model's doing).
    const tampered = scope.startFailure ? null : await scope.tampered();
    // Checked after scoring: a sandbox lost at any point up to here leaves a zero that is not the agent's.
    const lost = scope.startFailure || tampered ? null : await scope.lost();
    if (tampered) {
      this.finish("error", tampered);
      this.emit({ type: "error", where: "sandbox", message: tampered, infra: false });
    } else if (scope.startFailure || lost) {
      // The sandbox never came up, or failed under the agent or the verifier: the zero would be the infrastructure's, not the agent's.
      this.finish("error", scope.startFailure ? scope.startFailure.message : scope.guard.error().message);
      this.outcome.infra = true;
      this.emit({ type: "error", where: "sandbox", message: this.outcome.reason ?? "", infra: true });
    } else {
      const judged = judgedFields(score);
      this.emit({ type: "reward", total: score.total, components: score.components, ...judged });
      const hack = judged.hack_signals
        ? { signals: [...new Set(judged.hack_signals.map((s) => s.signal))], action: judged.hack_action ?? "flag" }
        : undefined;
      this.verdict = { reward: score.total, components: score.components, ...(hack ? { hack } : {}) };
    }
  }

  private verifierFailed(e: unknown): void {
    if (e instanceof RunsDiskError) throw e;
    const cancelled = this.scope.outside?.aborted === true;
    this.finish(cancelled ? "cancelled" : "error", cancelled ? "cancelled during verification" : (e as Error).message);
    // A service the verifier relies on that did not answer is the machinery's fault: retried, kept out of the scores.
    // So is a judging sandbox that could not start.
    if (e instanceof VerifierInfraError || e instanceof SandboxInfraError) this.outcome.infra = true;
    if (!cancelled) this.emit({ type: "error", where: "verifier", message: this.outcome.reason ?? "", infra: this.outcome.infra });
  }

  /** The debugger's last pause and the domain's teardown with the sandbox live, then the sandbox let go and `end` written. */
  async close(): Promise<RolloutResult> {
    const { o, scope } = this;
    const { status, reason } = this.outcome;
    const timings = this.account.timings;
    if (o.hooks?.beforeClose) {
      const rewardEvent = this.trajectory.events.findLast((e) => e.type === "reward");
      await o.hooks
        .beforeClose({ status, ...(reason ? { reason } : {}), reward: rewardEvent?.type === "reward" ? rewardEvent : null })
        .catch(() => {});
    }
    if (this.isSetUp && this.domain?.teardown) {
      try {
        await this.domain.teardown(this.toolCtx);
      } catch (e) {
        this.emit({ type: "error", where: "engine", message: `domain teardown failed: ${(e as Error).message}`, infra: false });
      }
    }
    await scope[Symbol.asyncDispose]();
    timings.sandbox_ms += scope.sandboxMs;
    this.account.sandboxSeconds = scope.heldMs / 1000;
    o.meter?.sandboxBusy?.(timings.sandbox_ms + timings.verify_ms);
    timings.total_ms = performance.now() - this.t0;
    const reward = this.verdict?.reward ?? null;
    const { turns, usage, judge, sandboxSeconds } = this.account;
    const tokens = this.account.tokens();
    this.emit({
      type: "end",
      status,
      ...(reason ? { reason } : {}),
      reward,
      turns,
      usage,
      timings: { ...timings },
      ...(tokens ? { tokens } : {}),
      sandbox_seconds: sandboxSeconds,
      judge: { ...judge },
    });
    // A rollout is finished once its trajectory is on disk (the runner's resume counts on it).
    await this.trajectory.close();
    const { verdict, answer, account } = this;
    return episodeResult({ o, ...this.outcome, verdict, answer, account, tokens, rewardHash: rewardHash(o.env) });
  }

  /** Lets go of the sandbox, the deadline and the listener, and of the trajectory, however the episode ended (a second call does nothing). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.scope[Symbol.asyncDispose]();
    if (!this.trajectory.closed) await this.trajectory.close().catch(() => {});
  }
}

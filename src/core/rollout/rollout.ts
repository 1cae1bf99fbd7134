import { findDomain } from "../domains/registry";
import type { DomainPlugin, ToolContext } from "../model/domain";
import type { ChatMessage } from "../policy/types";
import { rolloutFailure } from "../runs/failure";
import { aggregate } from "../reward/score";
import type { LoadedTask } from "../model/environment";
import type { VerifierConfig } from "../schema/verifier";
import { type Judgement, judgedFields, judgeRollout } from "./judging";
import { gateFailure, type StageResult, stageComponents, stageRewards, type TaskStage, type TaskStages } from "../model/task-stages";
import { rewardFor } from "../reward/task-reward";
import type { ChatToolCall, RewardComponent, RolloutStatus, TrajectoryEvent, Usage } from "../schema/trajectory";
import { TokenLedger } from "../tokens/ledger";
import { renderTemplate } from "../model/prompt-template";
import { RunsDiskError } from "../runs/disk-error";
import { RolloutTimeoutError, SandboxInfraError, VerifierInfraError } from "./errors";
import { classifyFailure } from "./rollout-failure";
import { TrajectoryLimitError } from "./trajectory-bounds";
import type { RolloutScope } from "./rollout-scope";
import type { PendingToolCall, RolloutMeter, RolloutResult, RunRolloutOptions } from "./rollout-types";
import { parseArguments, runStep, type StepOutcome } from "./step";
import { buildToolset, type Toolset } from "./toolset";
import type { TrajectoryWriter } from "./trajectory-writer";
import { truncateOutput } from "./truncate";
import { writeTaskFiles } from "../sandbox/task-files";

const directPolicy: RolloutMeter = { policyCall: (fn) => fn() };

/**
 * One agent episode, one method per phase: `reset` (the start event, the domain, the
 * prompts), `turn` (one policy reply and its tool calls), `verify` (score what the agent
 * left behind) and `close` (the last hooks, the domain's teardown, the sandbox let go, the
 * `end` event). The sandbox, the deadline and the cancellation listener live in the
 * RolloutScope; this object holds the conversation and the outcome so far.
 */
export class Rollout {
  private readonly timings = { total_ms: 0, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 };
  private readonly usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  // The rollout's token sequence, when the policy reports the tokens it sampled.
  private readonly ledger = new TokenLedger();
  private readonly meter: RolloutMeter;
  private readonly stepMs: number;
  private readonly toolCtx: ToolContext;
  private readonly messages: ChatMessage[];
  private status: RolloutStatus = "error";
  private reason: string | undefined;
  private infra = false;
  private answer: unknown;
  private turns = 0;
  private submitted = false;
  private domain: DomainPlugin | null = null;
  private isSetUp = false;
  private reward: number | null = null;
  private components: RewardComponent[] | undefined;
  private hack: { signals: string[]; action: "flag" | "zero" } | null = null;
  /** A multi-stage task's stage under play, and what each stage played so far left. */
  private stage: { index: number; done: boolean } | null = null;
  private readonly stageResults: StageResult[] = [];
  private stoppedBy: string | undefined;
  /** The agent loop's signal: the scope's, or within a step with its own timeout, that step's. */
  private signal: AbortSignal;
  private stageTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: RunRolloutOptions,
    private readonly writer: TrajectoryWriter,
    private readonly scope: RolloutScope,
    private readonly t0: number,
  ) {
    this.meter = o.meter ?? directPolicy;
    this.stepMs = o.env.manifest.sandbox.timeouts.step * 1000;
    this.messages = o.resume ? [...o.resume.messages] : [];
    this.signal = scope.signal;
    this.toolCtx = {
      env: o.env,
      task: o.task,
      sandbox: scope.sandbox,
      state: new Map<string, unknown>(),
      signal: scope.signal,
      timeoutMs: this.stepMs,
    };
  }

  private emit(e: Parameters<TrajectoryWriter["write"]>[0]): TrajectoryEvent {
    const ev = this.writer.write(e);
    this.o.hooks?.onEvent?.(ev);
    return ev;
  }

  /** Resets and plays turns until one ends the episode; a failure on the way is recorded, never thrown. */
  async play(): Promise<void> {
    try {
      const tools = await this.reset();
      const maxTurns = this.o.task.max_turns ?? this.o.env.manifest.max_turns;
      if (this.o.task.stages && !this.o.resume) {
        await this.playStages(this.o.task.stages, tools, maxTurns);
        return;
      }
      let ended = false;
      for (let turn = this.o.resume?.turn ?? 0; turn < maxTurns && !ended; turn++) ended = await this.turn(turn, tools);
      if (!ended) this.outcome("truncated", `max_turns (${maxTurns}) reached without submit`);
    } catch (caught) {
      // The runs folder's disk, not the rollout: nothing more can be recorded, and the run stops.
      if (caught instanceof RunsDiskError) throw caught;
      // The model flooded its trajectory: it ends here and is scored on what it left, as after max_turns.
      if (caught instanceof TrajectoryLimitError) {
        this.outcome("truncated", caught.message);
        return;
      }
      const failure = await classifyFailure(caught, this.scope);
      this.outcome(failure.status, failure.reason);
      if (failure.error) {
        this.infra = failure.error.infra;
        this.emit({ type: "error", ...failure.error });
      }
    } finally {
      this.scope.stopDeadline();
    }
  }

  /**
   * A multi-stage task: each stage's files and setup, its prompt (the first is the task's own,
   * already said), turns until the agent ends it, then its own verifier; a stage whose rewards
   * fail its gate, or that could not be scored, ends the rollout. Max turns and the deadline
   * count over all stages. The last stage played is scored in verify() when a throw ended it.
   */
  private async playStages(stages: TaskStages, toolset: Toolset, maxTurns: number): Promise<void> {
    let turn = 0;
    for (const [index, stage] of stages.list.entries()) {
      this.stage = { index, done: false };
      const setupError = await this.enterStage(stage, index, toolset);
      if (setupError) {
        this.stageResults.push({ stage, rewards: null, components: [], error: setupError });
        this.stage.done = true;
        this.stoppedBy = `step ${stage.name} did not start: ${setupError}`;
        if (index === 0) this.outcome("completed", this.stoppedBy);
        return;
      }
      this.submitted = false;
      let ended = false;
      let timedOut = false;
      const stageClock = this.startStageClock(stage);
      try {
        while (turn < maxTurns && !ended) ended = await this.turn(turn++, toolset);
        if (!ended) this.outcome("truncated", `max_turns (${maxTurns}) reached without submit in step ${stage.name}`);
      } catch (e) {
        // The step's own agent timeout (not the rollout's, not a cancel): as in Harbor, its tests still run and the next step may follow.
        if (!stageClock?.signal.aborted || this.scope.signal.aborted) throw e;
        timedOut = true;
        this.outcome("timeout", (stageClock.signal.reason as Error).message);
      } finally {
        this.endStageClock(stageClock);
      }
      const result = await this.verifyStage(stage);
      this.stage.done = true;
      const gate = result.rewards ? gateFailure(result.rewards, stage.minReward) : "no verifier result";
      if (gate) this.stoppedBy = `step ${stage.name}: ${gate}`;
      if (gate || (!ended && !timedOut) || turn >= maxTurns) return;
    }
  }

  /** A step's own agent timeout: the turns of the step run under a signal its clock aborts. */
  private startStageClock(stage: TaskStage): AbortController | null {
    if (stage.agentTimeoutSec === undefined) return null;
    const clock = new AbortController();
    const seconds = stage.agentTimeoutSec;
    const timer = setTimeout(
      () => clock.abort(new RolloutTimeoutError(`step ${stage.name}'s agent timeout (${seconds} s) reached`)),
      seconds * 1000,
    );
    clock.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    this.stageTimer = timer;
    this.signal = AbortSignal.any([this.scope.signal, clock.signal]);
    this.toolCtx.signal = this.signal;
    return clock;
  }

  private endStageClock(clock: AbortController | null): void {
    if (!clock) return;
    clearTimeout(this.stageTimer);
    this.signal = this.scope.signal;
    this.toolCtx.signal = this.signal;
  }

  /** A stage's workdir files and setup command, then (after the first) the policy's preparation and the stage's prompt; the setup's failure, if any. */
  private async enterStage(stage: TaskStage, index: number, toolset: Toolset): Promise<string | null> {
    const { o, scope } = this;
    if (stage.files || stage.setup) {
      const sb = await scope.sandbox();
      if (stage.files) await writeTaskFiles(sb, stage.files);
      if (stage.setup) {
        const r = await sb.exec(["bash", "-c", stage.setup], { timeoutMs: this.stepMs, signal: scope.signal });
        if (r.status !== "ok" || r.exitCode !== 0)
          return `its setup exited ${r.exitCode ?? r.reason ?? r.status}: ${(r.stderr || r.stdout).slice(-500)}`;
      }
    }
    if (index === 0) return null;
    await o.policy.prepare?.({
      tools: toolset.specs,
      sandbox: scope.sandbox,
      signal: scope.signal,
      timeoutMs: this.stepMs,
      stage: { index, name: stage.name, ...(stage.solution ? { solution: stage.solution } : {}) },
    });
    this.say("user", stage.prompt);
    return null;
  }

  /** One stage's verifier over what the agent left so far, with the stage's tests and reward list. */
  private async verifyStage(stage: TaskStage): Promise<StageResult> {
    const { o } = this;
    const task = {
      ...o.task,
      prompt: stage.prompt,
      ...(stage.tests ? { tests: stage.tests } : {}),
      ...(stage.reward ? { reward: stage.reward } : {}),
    };
    const score = await this.judge(rewardFor(o.env.manifest.reward, task), task);
    const result: StageResult = { stage, rewards: stageRewards(score.components), components: score.components };
    this.stageResults.push(result);
    return result;
  }

  /** The reward list scored where the environment judges (judging.ts), after the scan for hack signals. */
  private judge(rewards: VerifierConfig[], task: LoadedTask): Promise<Judgement> {
    const ctx = {
      env: this.o.env,
      task,
      state: this.toolCtx.state,
      answer: this.answer,
      events: this.writer.events,
      signal: this.scope.outside ?? new AbortController().signal,
    };
    return judgeRollout(this.scope, rewards, ctx, this.domain?.verifiers ?? [], Math.max(this.stepMs, 60_000));
  }

  /** A multi-stage task's score: the stage a timeout or max_turns cut short is scored too (as a one-stage task is), then the stages aggregated. */
  private async stagedScore(): Promise<{ total: number; components: RewardComponent[] }> {
    const stages = this.o.task.stages as TaskStages;
    const pending = this.stage && !this.stage.done ? stages.list[this.stage.index] : undefined;
    if (pending) {
      const r = await this.verifyStage(pending);
      const gate = r.rewards ? gateFailure(r.rewards, pending.minReward) : "no verifier result";
      this.stoppedBy = `step ${pending.name} ended early (${this.status})${gate ? `; ${gate}` : ""}`;
    }
    const components = stageComponents(stages, this.stageResults, this.stoppedBy);
    return { total: aggregate(components), components };
  }

  private outcome(status: RolloutStatus, reason: string | undefined): void {
    this.status = status;
    this.reason = reason;
  }

  /** The start event, the domain set up (or resumed from a fork), the policy's preparation and the first messages. */
  async reset(): Promise<Toolset> {
    const { o } = this;
    const m = o.env.manifest;
    this.domain = o.domain !== undefined ? o.domain : await findDomain(m.domain);
    const toolset = o.toolset ?? buildToolset(o.env, this.domain);
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
      ...(o.resume ? { forked_from: o.resume.from } : {}),
      ...(o.previousAttempts?.length ? { attempt: o.previousAttempts.length + 1, previous_attempts: o.previousAttempts } : {}),
    });
    const domain = this.domain;
    await domain?.setup?.(this.toolCtx);
    this.isSetUp = true;
    if (o.resume?.domain !== undefined) {
      if (!domain?.resumeState) throw new Error(`the fork carries ${m.domain} state that the ${m.domain} domain cannot take back`);
      await domain.resumeState(this.toolCtx, o.resume.domain);
    }
    o.hooks?.setUp?.({ domainState: async () => (domain?.forkState ? domain.forkState(this.toolCtx) : undefined) });
    if (o.policy.prepare) {
      // What a policy does to the sandbox before the first turn (the oracle's direct writes) is sandbox time.
      const p0 = performance.now();
      const a0 = this.scope.sandboxMs;
      await o.policy.prepare({ tools: toolset.specs, sandbox: this.scope.sandbox, signal: this.scope.signal, timeoutMs: this.stepMs });
      this.timings.sandbox_ms += performance.now() - p0 - (this.scope.sandboxMs - a0);
    }
    // A fork's history is in the trajectory it came from (start.forked_from); this file starts at the fork.
    const system = o.resume ? "" : renderTemplate(o.env.prompts.system, o.env, o.task);
    if (system.trim()) this.say("system", system);
    if (!o.resume) this.say("user", renderTemplate(o.env.prompts.user, o.env, o.task));
    return toolset;
  }

  private say(role: "system" | "user", content: string): void {
    this.messages.push({ role, content });
    this.emit({ type: "message", role, content });
  }

  /** One policy reply and the tool calls it makes; true when the episode is over (submitted, or no tool call). */
  async turn(turn: number, toolset: Toolset): Promise<boolean> {
    const { o, scope, messages } = this;
    await o.hooks?.beforePolicyCall?.({ turn, messages, sandbox: scope.sandbox });
    this.signal.throwIfAborted();
    const p0 = performance.now();
    const reply = await this.meter.policyCall(
      () => o.policy.next({ messages, tools: toolset.specs, turn, signal: this.signal }),
      this.signal,
    );
    this.timings.policy_ms += performance.now() - p0;
    this.turns = turn + 1;
    if (reply.usage) {
      this.usage.prompt_tokens += reply.usage.prompt_tokens;
      this.usage.completion_tokens += reply.usage.completion_tokens;
    }
    const calls: ChatToolCall[] = reply.tool_calls.map((c, i) => ({ ...c, id: c.id || `call_${turn}_${i}` }));
    this.emit({
      type: "message",
      role: "assistant",
      content: reply.content,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reply.usage ? { usage: reply.usage } : {}),
      latency_ms: reply.latencyMs,
      turn,
      ...(reply.tokens ? { tokens: this.ledger.record(reply.tokens) } : {}),
    });
    messages.push({ role: "assistant", content: reply.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length === 0) {
      // A reply with no tool call is the agent's final word (the chat convention).
      this.answer = reply.content;
      this.outcome("completed", "the policy replied without a tool call");
      return true;
    }
    for (const call of calls) {
      if (this.submitted) this.notRun(call, turn);
      else await this.call(call, turn, toolset);
    }
    if (this.submitted) this.outcome("completed", "submitted");
    return this.submitted;
  }

  /** A call after submit in the same message: recorded, answered with an error, never run. */
  private notRun(call: ChatToolCall, turn: number): void {
    const text = "Not run: the task was already submitted earlier in this message.";
    const parsed = parseArguments(call.arguments);
    this.emit({ type: "tool_call", id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments, turn });
    this.emit({
      type: "observation",
      tool_call_id: call.id,
      name: call.name,
      output: text,
      status: "error",
      error: "after submit",
      duration_ms: 0,
      turn,
    });
    this.messages.push({ role: "tool", tool_call_id: call.id, content: text });
  }

  /** One tool call: the debugger's edit, the step under its deadline, the observation. */
  private async call(call: ChatToolCall, turn: number, toolset: Toolset): Promise<void> {
    const { o, scope } = this;
    const parsed = parseArguments(call.arguments);
    let pending: PendingToolCall = { id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments };
    let edited = false;
    if (o.hooks?.beforeToolCall) {
      const next = await o.hooks.beforeToolCall(pending, scope.sandbox);
      edited = JSON.stringify(next) !== JSON.stringify(pending);
      pending = next;
      this.signal.throwIfAborted();
    }
    this.emit({
      type: "tool_call",
      id: pending.id,
      name: pending.name,
      arguments: pending.arguments,
      ...(edited ? { edited: true } : {}),
      turn,
    });
    const tool = toolset.byName.get(pending.name);
    let out: StepOutcome;
    if (!tool) {
      const msg = `unknown tool '${pending.name}'; the tools are: ${[...toolset.byName.keys()].join(", ")}`;
      out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
    } else if (typeof pending.arguments !== "object" || pending.arguments === null || Array.isArray(pending.arguments)) {
      const msg = edited || parsed.ok ? "the arguments must be a JSON object" : parsed.error;
      out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
    } else {
      const a0 = scope.sandboxMs;
      out = await runStep(tool, pending.arguments as Record<string, unknown>, this.toolCtx);
      this.timings.sandbox_ms += out.durationMs - (scope.sandboxMs - a0);
      // A step that timed out or failed: the agent's command, or a sandbox that stopped answering?
      if (out.status !== undefined && out.status !== "ok") await scope.lost();
      if (scope.guard.lost) throw scope.guard.error();
    }
    const t = truncateOutput(out.output, o.env.manifest.tool_output_limit);
    const observation = this.emit({
      type: "observation",
      tool_call_id: pending.id,
      name: pending.name,
      output: t.output,
      ...(out.exitCode !== undefined ? { exit_code: out.exitCode } : {}),
      status: out.status ?? (out.error ? "error" : "ok"),
      duration_ms: out.durationMs,
      ...(t.truncated ? { truncated: t.truncated } : {}),
      ...(out.error ? { error: out.error } : {}),
      ...(out.artifacts ? { artifacts: out.artifacts } : {}),
      turn,
    });
    this.messages.push({ role: "tool", tool_call_id: pending.id, content: t.output });
    if (observation.type === "observation") await o.hooks?.afterToolCall?.(pending, observation);
    if (out.submit) {
      this.submitted = true;
      this.answer = out.submit.answer;
    }
  }

  /** Scores what the agent left behind, even after max_turns or a timeout; a sandbox lost on the way makes it an infra error. */
  async verify(): Promise<void> {
    if (this.status !== "completed" && this.status !== "truncated" && this.status !== "timeout") return;
    const { o, scope } = this;
    const v0 = performance.now();
    const a0 = scope.sandboxMs;
    try {
      const score = this.stage ? await this.stagedScore() : await this.judge(rewardFor(o.env.manifest.reward, o.task), o.task);
      // Checked after scoring: a reply channel written into from inside voids any verdict read through it (the model's doing).
      const tampered = scope.startFailure ? null : await scope.tampered();
      // Checked after scoring: a sandbox lost at any point up to here leaves a zero that is not the agent's.
      const lost = scope.startFailure || tampered ? null : await scope.lost();
      if (tampered) {
        this.outcome("error", tampered);
        this.emit({ type: "error", where: "sandbox", message: tampered, infra: false });
      } else if (scope.startFailure || lost) {
        // The sandbox never came up, or failed under the agent or the verifier: the zero would be the infrastructure's, not the agent's.
        this.outcome("error", scope.startFailure ? scope.startFailure.message : scope.guard.error().message);
        this.infra = true;
        this.emit({ type: "error", where: "sandbox", message: this.reason ?? "", infra: true });
      } else {
        const judged = judgedFields(score);
        this.emit({ type: "reward", total: score.total, components: score.components, ...judged });
        this.reward = score.total;
        this.components = score.components;
        if (judged.hack_signals)
          this.hack = { signals: [...new Set(judged.hack_signals.map((s) => s.signal))], action: judged.hack_action ?? "flag" };
      }
    } catch (e) {
      if (e instanceof RunsDiskError) throw e;
      const cancelled = scope.outside?.aborted === true;
      this.outcome(cancelled ? "cancelled" : "error", cancelled ? "cancelled during verification" : (e as Error).message);
      // A service the verifier relies on that did not answer is the machinery's fault: retried, kept out of the scores.
      // So is a judging sandbox that could not start.
      if (e instanceof VerifierInfraError || e instanceof SandboxInfraError) this.infra = true;
      if (!cancelled) this.emit({ type: "error", where: "verifier", message: this.reason ?? "", infra: this.infra });
    }
    this.timings.verify_ms = performance.now() - v0 - (scope.sandboxMs - a0);
  }

  /** The debugger's last pause and the domain's teardown with the sandbox live, then the sandbox let go and `end` on disk. */
  async close(): Promise<RolloutResult> {
    const { o, scope, timings, status, reason } = this;
    if (o.hooks?.beforeClose) {
      const rewardEvent = this.writer.events.findLast((e) => e.type === "reward");
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
    this.meter.sandboxBusy?.(timings.sandbox_ms + timings.verify_ms);
    timings.total_ms = performance.now() - this.t0;
    const { reward, turns, usage, components } = this;
    const tokens = this.ledger.summary();
    this.emit({
      type: "end",
      status,
      ...(reason ? { reason } : {}),
      reward,
      turns,
      usage,
      timings: { ...timings },
      ...(tokens ? { tokens } : {}),
    });
    // A rollout is finished once its trajectory is on disk (the runner's resume counts on it).
    await this.writer.close();
    const failure = status === "cancelled" ? undefined : rolloutFailure({ status, reason, reward, components });
    return {
      rolloutId: o.rolloutId,
      file: o.file,
      task: o.task.id,
      sample: o.sample ?? 0,
      status,
      ...(reason ? { reason } : {}),
      reward,
      ...(failure ? { failure } : {}),
      ...(components ? { components } : {}),
      ...(this.hack ? { hackSignals: this.hack.signals, hackAction: this.hack.action } : {}),
      infra: this.infra,
      answer: this.answer,
      turns,
      usage,
      timings,
      ...(tokens ? { driftTurns: tokens.drift_turns } : {}),
    };
  }
}

import { findDomain } from "../domains/registry";
import type { DomainPlugin, ToolContext } from "../domains/types";
import { sandboxFiles } from "../environment/file-content";
import type { Environment } from "../environment/load-environment";
import type { LoadedTask } from "../environment/load-tasks";
import { abortReason } from "../policy/backoff";
import { type ChatMessage, type Policy, PolicyInfraError, type PolicyReply, PolicyRequestError } from "../policy/types";
import { rolloutFailure } from "../reward/failure";
import { scoreRollout } from "../reward/score";
import { rewardFor } from "../reward/task-reward";
import { sandboxRequest } from "../sandbox/request";
import type { Sandbox, SandboxProvider } from "../sandbox/types";
import type { ChatToolCall, RewardComponent, RolloutStatus, TrajectoryEvent, Usage } from "../schema/trajectory";
import { RolloutTimeoutError, SandboxInfraError, ToolCrashError } from "./errors";
import { renderTemplate } from "./prompt";
import { SandboxGuard } from "./sandbox-guard";
import { parseArguments, runStep, type StepOutcome } from "./step";
import { buildToolset, type Toolset } from "./toolset";
import { TrajectoryWriter } from "./trajectory-writer";
import { truncateOutput } from "./truncate";

/** A tool call as the debugger sees it before it runs; `arguments` is the parsed object, or the raw text when it was not JSON. */
export interface PendingToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** Pause points for the debugger (issue 11) and observers. */
export interface RolloutHooks {
  /** Before each policy request; may wait (a paused debugger). */
  beforePolicyCall?(info: { turn: number; messages: readonly ChatMessage[]; sandbox: () => Promise<Sandbox> }): Promise<void>;
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
  /** An infrastructure failure (sandbox start or lost, policy server down): worth retrying, never scored. */
  infra: boolean;
  /** Tries it took (the scheduler's count: earlier ones failed on the infrastructure). */
  attempts?: number;
  answer: unknown;
  turns: number;
  usage: Usage;
  timings: { total_ms: number; policy_ms: number; sandbox_ms: number; verify_ms: number };
}

const directPolicy: RolloutMeter = { policyCall: (fn) => fn() };

/**
 * One agent episode: reset a sandbox (lazily, on first use), render the prompts, loop
 * policy → tool calls → observations until submit, max_turns, a timeout or
 * cancellation, then verify and score. Every event goes to the trajectory as it happens;
 * the file always ends with `end`, whatever happened.
 */
export async function runRollout(o: RunRolloutOptions): Promise<RolloutResult> {
  const t0 = performance.now();
  const writer = await TrajectoryWriter.create(o.file);
  const emit: typeof writer.write = (e) => {
    const ev = writer.write(e);
    o.hooks?.onEvent?.(ev);
    return ev;
  };
  const m = o.env.manifest;
  const sample = o.sample ?? 0;
  const meter = o.meter ?? directPolicy;
  const timings = { total_ms: 0, policy_ms: 0, sandbox_ms: 0, verify_ms: 0 };
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };

  // The rollout's own deadline aborts the agent loop only; verification gets the outside signal.
  const ac = new AbortController();
  const outside = o.signal;
  const onOutside = () => ac.abort(abortReason(outside));
  if (outside?.aborted) onOutside();
  outside?.addEventListener("abort", onOutside, { once: true });
  const deadline = setTimeout(
    () => ac.abort(new RolloutTimeoutError(`rollout timeout (${m.sandbox.timeouts.rollout} s) reached`)),
    m.sandbox.timeouts.rollout * 1000,
  );

  let sandboxP: Promise<Sandbox> | null = null;
  let sandboxFailure: SandboxInfraError | null = null;
  // A sandbox that fails after it started (killed, paused, its agent lost) is never the agent's doing.
  const guard = new SandboxGuard();
  // Acquisition is sandbox time wherever it happens (a tool, the oracle, a verifier): tracked apart so it is counted once.
  let acquireMs = 0;
  const acquire = async (): Promise<Sandbox> => {
    const s0 = performance.now();
    let sb: Sandbox | undefined;
    try {
      sb = await o.sandboxProvider.acquire(sandboxRequest(o.env, { "rlenv.run": o.runId, "rlenv.rollout": o.rolloutId }, ac.signal));
      await sb.reset(sandboxFiles({ ...(o.task.files ?? {}), ...(o.task.visible_tests ?? {}) }));
      if (o.resume) await applyFiles(sb, o.resume.files);
      return guard.wrap(sb);
    } catch (e) {
      if (sb) await sb.close().catch(() => {});
      if (ac.signal.aborted) throw abortReason(ac.signal);
      sandboxFailure = new SandboxInfraError(`sandbox (${o.sandboxProvider.backend}) could not start: ${(e as Error).message}`);
      throw sandboxFailure;
    } finally {
      acquireMs += performance.now() - s0;
    }
  };
  const sandbox = (): Promise<Sandbox> => {
    sandboxP ??= acquire();
    return sandboxP;
  };
  /** Why the rollout's sandbox is lost, asking it when it was started; null while it answers (or never started). */
  const sandboxLost = async (): Promise<string | null> => {
    const sb = sandboxP ? await (sandboxP as Promise<Sandbox>).catch(() => null) : null;
    return sb ? guard.probe(sb) : guard.lost;
  };
  const state = new Map<string, unknown>();
  const stepMs = m.sandbox.timeouts.step * 1000;
  const toolCtx: ToolContext = { env: o.env, task: o.task, sandbox, state, signal: ac.signal, timeoutMs: stepMs };

  let status: RolloutStatus = "error";
  let reason: string | undefined;
  let infra = false;
  let answer: unknown;
  let turns = 0;
  let domain: DomainPlugin | null = null;
  let setUp = false;
  let toolset: Toolset | undefined = o.toolset;

  try {
    domain = o.domain !== undefined ? o.domain : await findDomain(m.domain);
    toolset ??= buildToolset(o.env, domain);
    emit({
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
      sample,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      sandbox: { backend: o.sandboxProvider.backend, ...(m.sandbox.image ? { image: m.sandbox.image } : {}) },
      tools: toolset.specs,
      ...(o.resume ? { forked_from: o.resume.from } : {}),
      ...(o.previousAttempts?.length ? { attempt: o.previousAttempts.length + 1, previous_attempts: o.previousAttempts } : {}),
    });
    await domain?.setup?.(toolCtx);
    setUp = true;
    if (o.resume?.domain !== undefined) {
      if (!domain?.resumeState) throw new Error(`the fork carries ${m.domain} state that the ${m.domain} domain cannot take back`);
      await domain.resumeState(toolCtx, o.resume.domain);
    }
    const forkable = domain;
    o.hooks?.setUp?.({ domainState: async () => (forkable?.forkState ? forkable.forkState(toolCtx) : undefined) });
    if (o.policy.prepare) {
      // What a policy does to the sandbox before the first turn (the oracle's direct writes) is sandbox time.
      const p0 = performance.now();
      const a0 = acquireMs;
      await o.policy.prepare({ tools: toolset.specs, sandbox, signal: ac.signal, timeoutMs: stepMs });
      timings.sandbox_ms += performance.now() - p0 - (acquireMs - a0);
    }

    const messages: ChatMessage[] = o.resume ? [...o.resume.messages] : [];
    // A fork's history is in the trajectory it came from (start.forked_from); this file starts at the fork.
    const system = o.resume ? "" : renderTemplate(o.env.prompts.system, o.env, o.task);
    if (system.trim()) {
      messages.push({ role: "system", content: system });
      emit({ type: "message", role: "system", content: system });
    }
    if (!o.resume) {
      const user = renderTemplate(o.env.prompts.user, o.env, o.task);
      messages.push({ role: "user", content: user });
      emit({ type: "message", role: "user", content: user });
    }

    const maxTurns = o.task.max_turns ?? m.max_turns;
    let submitted = false;
    let ended = false;
    for (let turn = o.resume?.turn ?? 0; turn < maxTurns && !ended; turn++) {
      await o.hooks?.beforePolicyCall?.({ turn, messages, sandbox });
      ac.signal.throwIfAborted();
      const p0 = performance.now();
      const reply = await meter.policyCall(() => o.policy.next({ messages, tools: toolset!.specs, turn, signal: ac.signal }), ac.signal);
      timings.policy_ms += performance.now() - p0;
      turns = turn + 1;
      if (reply.usage) {
        usage.prompt_tokens += reply.usage.prompt_tokens;
        usage.completion_tokens += reply.usage.completion_tokens;
      }
      const calls: ChatToolCall[] = reply.tool_calls.map((c, i) => ({ ...c, id: c.id || `call_${turn}_${i}` }));
      emit({
        type: "message",
        role: "assistant",
        content: reply.content,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
        ...(reply.usage ? { usage: reply.usage } : {}),
        latency_ms: reply.latencyMs,
        turn,
      });
      messages.push({ role: "assistant", content: reply.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      if (calls.length === 0) {
        // A reply with no tool call is the agent's final word (the chat convention).
        answer = reply.content;
        status = "completed";
        reason = "the policy replied without a tool call";
        ended = true;
        break;
      }
      for (const call of calls) {
        if (submitted) {
          const text = "Not run: the task was already submitted earlier in this message.";
          emit({
            type: "tool_call",
            id: call.id,
            name: call.name,
            arguments: parseArguments(call.arguments).ok ? JSON.parse(call.arguments || "{}") : call.arguments,
            turn,
          });
          emit({
            type: "observation",
            tool_call_id: call.id,
            name: call.name,
            output: text,
            status: "error",
            error: "after submit",
            duration_ms: 0,
            turn,
          });
          messages.push({ role: "tool", tool_call_id: call.id, content: text });
          continue;
        }
        const out = await runOneCall(call, turn);
        if (out.submit) {
          submitted = true;
          answer = out.submit.answer;
        }
      }
      if (submitted) {
        status = "completed";
        reason = "submitted";
        ended = true;
      }
    }
    if (!ended) {
      status = "truncated";
      reason = `max_turns (${maxTurns}) reached without submit`;
    }

    async function runOneCall(call: ChatToolCall, turn: number): Promise<StepOutcome> {
      const parsed = parseArguments(call.arguments);
      let pending: PendingToolCall = { id: call.id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments };
      let edited = false;
      if (o.hooks?.beforeToolCall) {
        const next = await o.hooks.beforeToolCall(pending, sandbox);
        edited = JSON.stringify(next) !== JSON.stringify(pending);
        pending = next;
        ac.signal.throwIfAborted();
      }
      emit({
        type: "tool_call",
        id: pending.id,
        name: pending.name,
        arguments: pending.arguments,
        ...(edited ? { edited: true } : {}),
        turn,
      });
      const tool = toolset!.byName.get(pending.name);
      let out: StepOutcome;
      if (!tool) {
        const msg = `unknown tool '${pending.name}'; the tools are: ${[...toolset!.byName.keys()].join(", ")}`;
        out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
      } else if (typeof pending.arguments !== "object" || pending.arguments === null || Array.isArray(pending.arguments)) {
        const msg = edited ? "the arguments must be a JSON object" : parsed.ok ? "the arguments must be a JSON object" : parsed.error;
        out = { output: `Error: ${msg}`, status: "error", error: msg, durationMs: 0 };
      } else {
        const a0 = acquireMs;
        out = await runStep(tool, pending.arguments as Record<string, unknown>, toolCtx);
        timings.sandbox_ms += out.durationMs - (acquireMs - a0);
        // A step that timed out or failed: the agent's command, or a sandbox that stopped answering?
        if (out.status !== undefined && out.status !== "ok") await sandboxLost();
        if (guard.lost) throw guard.error();
      }
      const t = truncateOutput(out.output, m.tool_output_limit);
      const observation = emit({
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
      messages.push({ role: "tool", tool_call_id: pending.id, content: t.output });
      if (observation.type === "observation") await o.hooks?.afterToolCall?.(pending, observation);
      return out;
    }
  } catch (caught) {
    let e = caught;
    // Whatever broke (a tool program, the engine), a sandbox lost under it is the cause.
    if (!(e instanceof SandboxInfraError) && !outside?.aborted && !sandboxFailure && (await sandboxLost())) e = guard.error();
    const why = ac.signal.aborted && !(e instanceof SandboxInfraError) ? (ac.signal.reason as unknown) : e;
    if (why instanceof RolloutTimeoutError) {
      status = "timeout";
      reason = why.message;
    } else if (outside?.aborted) {
      status = "cancelled";
      reason = "cancelled";
    } else {
      status = "error";
      const err = e instanceof Error ? e : new Error(String(e));
      infra = e instanceof PolicyInfraError || e instanceof SandboxInfraError;
      reason = err.message;
      const where =
        e instanceof PolicyInfraError || e instanceof PolicyRequestError
          ? "policy"
          : e instanceof SandboxInfraError
            ? "sandbox"
            : e instanceof ToolCrashError
              ? "tool"
              : "engine";
      emit({ type: "error", where, message: err.message, infra, ...(where === "engine" && err.stack ? { stack: err.stack } : {}) });
    }
  } finally {
    clearTimeout(deadline);
  }

  // Score what the agent left behind, even after max_turns or a timeout.
  let reward: number | null = null;
  let components: RewardComponent[] | undefined;
  if (status === "completed" || status === "truncated" || status === "timeout") {
    const v0 = performance.now();
    const a0 = acquireMs;
    const verifySignal = outside ?? new AbortController().signal;
    try {
      const score = await scoreRollout(
        rewardFor(m.reward, o.task),
        { env: o.env, task: o.task, sandbox, state, answer, events: writer.events, signal: verifySignal },
        domain?.verifiers ?? [],
        Math.max(stepMs, 60_000),
      );
      // Checked after scoring: a sandbox lost at any point up to here leaves a zero that is not the agent's.
      const lost = sandboxFailure ? null : await sandboxLost();
      if (sandboxFailure || lost) {
        // The sandbox never came up, or failed under the agent or the verifier: the zero would be the infrastructure's, not the agent's.
        status = "error";
        infra = true;
        reason = sandboxFailure ? (sandboxFailure as SandboxInfraError).message : guard.error().message;
        emit({ type: "error", where: "sandbox", message: reason, infra: true });
      } else {
        emit({ type: "reward", total: score.total, components: score.components });
        reward = score.total;
        components = score.components;
      }
    } catch (e) {
      status = outside?.aborted ? "cancelled" : "error";
      reason = outside?.aborted ? "cancelled during verification" : (e as Error).message;
      if (status === "error") emit({ type: "error", where: "verifier", message: reason, infra: false });
    }
    timings.verify_ms = performance.now() - v0 - (acquireMs - a0);
  }

  if (o.hooks?.beforeClose) {
    const rewardEvent = writer.events.findLast((e) => e.type === "reward");
    await o.hooks
      .beforeClose({ status, ...(reason ? { reason } : {}), reward: rewardEvent?.type === "reward" ? rewardEvent : null })
      .catch(() => {});
  }
  if (setUp && domain?.teardown) {
    try {
      await domain.teardown(toolCtx);
    } catch (e) {
      emit({ type: "error", where: "engine", message: `domain teardown failed: ${(e as Error).message}`, infra: false });
    }
  }
  if (sandboxP) {
    const c0 = performance.now();
    await (sandboxP as Promise<Sandbox>).then((sb) => sb.close()).catch(() => {});
    timings.sandbox_ms += performance.now() - c0;
  }
  outside?.removeEventListener("abort", onOutside);
  timings.sandbox_ms += acquireMs;
  meter.sandboxBusy?.(timings.sandbox_ms + timings.verify_ms);
  timings.total_ms = performance.now() - t0;
  emit({ type: "end", status, ...(reason ? { reason } : {}), reward, turns, usage, timings: { ...timings } });
  // A rollout is finished once its trajectory is on disk (the runner's resume counts on it).
  await writer.close();
  const failure = status === "cancelled" ? undefined : rolloutFailure({ status, reason, reward, components });
  return {
    rolloutId: o.rolloutId,
    file: o.file,
    task: o.task.id,
    sample,
    status,
    ...(reason ? { reason } : {}),
    reward,
    ...(failure ? { failure } : {}),
    ...(components ? { components } : {}),
    infra,
    answer,
    turns,
    usage,
    timings,
  };
}

/** Writes a fork's workdir state over the seed files (null: the file was deleted). */
async function applyFiles(sb: Sandbox, files: Record<string, string | Buffer | null>): Promise<void> {
  const write: Record<string, string | Buffer> = {};
  const gone: string[] = [];
  for (const [p, v] of Object.entries(files)) {
    if (v === null) gone.push(p);
    else write[p] = v;
  }
  if (Object.keys(write).length > 0) await sb.writeFiles(write);
  if (gone.length > 0) await sb.exec(["rm", "-f", "--", ...gone]);
}

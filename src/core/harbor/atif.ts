import type { ContentPart, TrajectoryEvent } from "../schema/trajectory";

/** Harbor's Agent Trajectory Interchange Format (ATIF v1.4): one JSON object per trajectory. */
export const ATIF_VERSION = "ATIF-v1.4";

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  model_name?: string;
  message: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: Array<{ source_call_id?: string; content?: string }> };
  metrics?: { prompt_tokens?: number; completion_tokens?: number };
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: string;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: { total_prompt_tokens?: number; total_completion_tokens?: number; total_steps?: number; extra?: Record<string, unknown> };
  extra?: Record<string, unknown>;
}

const text = (c: string | ContentPart[] | null): string =>
  c === null
    ? ""
    : typeof c === "string"
      ? c
      : c.map((p) => (p.type === "text" ? p.text : `[image: ${p.image_url.url.slice(0, 64)}]`)).join("\n");

const iso = (t: number) => new Date(t).toISOString();

function argsObject(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    return { value: v };
  } catch {
    // ATIF wants an object: arguments that were not JSON keep their text under one key.
    return { raw };
  }
}

/**
 * One rollout as an ATIF trajectory: system and user messages are steps of their own; each
 * assistant turn is an agent step with its tool calls and, as its observation, the results of
 * those calls. The reward (total and every component), the environment, task, run and status
 * go to `extra.rlenv`, which ATIF leaves to the producer.
 */
export function rolloutToAtif(events: readonly TrajectoryEvent[], version: string): AtifTrajectory {
  const start = events.find((e) => e.type === "start");
  const end = events.find((e) => e.type === "end");
  const reward = events.find((e) => e.type === "reward");
  const results = new Map<string, string>();
  for (const e of events)
    if (e.type === "observation") results.set(e.tool_call_id, text(e.output) + (e.error ? `\n[error: ${e.error}]` : ""));
  const steps: AtifStep[] = [];
  for (const e of events) {
    if (e.type !== "message") continue;
    const base = { step_id: steps.length + 1, timestamp: iso(e.t), message: text(e.content) };
    if (e.role !== "assistant") {
      steps.push({ ...base, source: e.role });
      continue;
    }
    const calls = (e.tool_calls ?? []).map((c) => ({ tool_call_id: c.id, function_name: c.name, arguments: argsObject(c.arguments) }));
    const observed = calls
      .filter((c) => results.has(c.tool_call_id))
      .map((c) => ({ source_call_id: c.tool_call_id, content: results.get(c.tool_call_id) ?? "" }));
    steps.push({
      ...base,
      source: "agent",
      ...(start?.policy.model ? { model_name: start.policy.model } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(observed.length > 0 ? { observation: { results: observed } } : {}),
      ...(e.usage ? { metrics: { prompt_tokens: e.usage.prompt_tokens, completion_tokens: e.usage.completion_tokens } } : {}),
    });
  }
  return {
    schema_version: ATIF_VERSION,
    session_id: start?.rollout_id ?? "rollout",
    agent: { name: `rlenv-${start?.policy.kind ?? "policy"}`, version, ...(start?.policy.model ? { model_name: start.policy.model } : {}) },
    steps,
    final_metrics: {
      ...(end ? { total_prompt_tokens: end.usage.prompt_tokens, total_completion_tokens: end.usage.completion_tokens } : {}),
      total_steps: steps.length,
    },
    extra: {
      rlenv: {
        ...(start ? { run_id: start.run_id, env: start.env, task: start.task, sample: start.sample } : {}),
        ...(reward ? { reward: { total: reward.total, components: reward.components } } : {}),
        ...(end ? { status: end.status, ...(end.reason ? { reason: end.reason } : {}) } : {}),
      },
    },
  };
}

export function isAtif(v: unknown): v is AtifTrajectory {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as AtifTrajectory).schema_version === "string" &&
    (v as AtifTrajectory).schema_version.startsWith("ATIF-") &&
    Array.isArray((v as AtifTrajectory).steps)
  );
}

/**
 * An ATIF trajectory (Harbor's, or one written by rolloutToAtif) as our trajectory events, for
 * the viewer: each step a message, each tool call a tool_call event with its observation, the
 * reward from `extra.rlenv` when there is one.
 */
export function atifToEvents(a: AtifTrajectory): TrajectoryEvent[] {
  const out: TrajectoryEvent[] = [];
  const firstT = Date.parse(a.steps[0]?.timestamp ?? "") || 0;
  let t = firstT;
  const next = <E extends object>(e: E) => out.push({ ...e, seq: out.length } as unknown as TrajectoryEvent);
  const rl = (a.extra?.rlenv ?? {}) as {
    run_id?: string;
    env?: { name: string; hash: string; domain: string };
    task?: { id: string; prompt: string };
    reward?: { total: number; components: unknown[] };
    status?: string;
  };
  const prompt = a.steps.find((s) => s.source === "user")?.message ?? "";
  next({
    type: "start",
    t,
    run_id: rl.run_id ?? "atif",
    rollout_id: a.session_id,
    env: rl.env ?? { name: a.agent.name, hash: "", domain: "custom" },
    task: rl.task ?? { id: a.session_id, prompt },
    policy: { kind: a.agent.name, ...(a.agent.model_name ? { model: a.agent.model_name } : {}) },
    sample: 0,
    sandbox: { backend: "harbor" },
  });
  let turns = 0;
  for (const s of a.steps) {
    t = Date.parse(s.timestamp ?? "") || t;
    if (s.source !== "agent") {
      next({ type: "message", t, role: s.source, content: s.message });
      continue;
    }
    const calls = s.tool_calls ?? [];
    next({
      type: "message",
      t,
      role: "assistant",
      content: s.message,
      turn: turns,
      ...(calls.length > 0
        ? { tool_calls: calls.map((c) => ({ id: c.tool_call_id, name: c.function_name, arguments: JSON.stringify(c.arguments) })) }
        : {}),
      ...(s.metrics ? { usage: { prompt_tokens: s.metrics.prompt_tokens ?? 0, completion_tokens: s.metrics.completion_tokens ?? 0 } } : {}),
    });
    const results = s.observation?.results ?? [];
    for (const c of calls) {
      next({ type: "tool_call", t, id: c.tool_call_id, name: c.function_name, arguments: c.arguments, turn: turns });
      const r = results.find((x) => x.source_call_id === c.tool_call_id);
      if (r)
        next({
          type: "observation",
          t,
          tool_call_id: c.tool_call_id,
          name: c.function_name,
          output: r.content ?? "",
          status: "ok",
          duration_ms: 0,
          turn: turns,
        });
    }
    // Results of actions that were no tool call (Harbor agents that run commands from text) are shown as the environment's reply.
    for (const r of results.filter((x) => !x.source_call_id || !calls.some((c) => c.tool_call_id === x.source_call_id)))
      next({ type: "message", t, role: "user", content: r.content ?? "" });
    turns++;
  }
  if (rl.reward) next({ type: "reward", t, total: rl.reward.total, components: rl.reward.components });
  const status = ["completed", "truncated", "timeout", "error", "cancelled"].includes(rl.status ?? "") ? rl.status : "completed";
  next({
    type: "end",
    t,
    status,
    reward: rl.reward?.total ?? null,
    turns,
    usage: {
      prompt_tokens: a.final_metrics?.total_prompt_tokens ?? 0,
      completion_tokens: a.final_metrics?.total_completion_tokens ?? 0,
    },
    timings: { total_ms: Math.max(0, t - firstT), policy_ms: 0, sandbox_ms: 0, verify_ms: 0 },
  });
  return out;
}

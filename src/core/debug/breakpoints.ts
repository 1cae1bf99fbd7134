import vm from "node:vm";
import { evaluateExpression } from "./expression";

/**
 * Rollout breakpoints, parsed from the text a user types as a DAP function breakpoint:
 *   `bash` or `tool:bash`            before a call of that tool
 *   `observation:/Traceback/i`       after an observation whose text matches
 *   `error`                          after an error observation, or when the rollout fails
 *   `reward<0.5`, `reward:hidden-check<1`   at the end, when the total / a component is below
 * Line breakpoints on a task's line are built with `taskBreakpoint`.
 */
export type BreakpointSpec =
  | { kind: "tool"; tool: string }
  | { kind: "observation"; pattern: RegExp }
  | { kind: "error" }
  | { kind: "reward"; component?: string; below: number }
  | { kind: "task"; file: string; line: number };

export interface Breakpoint {
  readonly id: number;
  readonly text: string;
  readonly spec: BreakpointSpec;
  /** A JavaScript expression over { tool, args, turn, observation, reward, components }. */
  readonly condition?: string;
  /** DAP hit condition: `N` / `>=N` (from the Nth hit on), `>N`, `==N`, `%N`. */
  readonly hitCondition?: string;
  hits: number;
}

/** What a condition sees at a pause point. */
export interface BreakContext {
  tool?: string;
  args?: unknown;
  turn?: number;
  observation?: string;
  status?: string;
  reward?: number | null;
  components?: Record<string, number>;
}

export type ParseResult = { ok: true; breakpoint: Breakpoint } | { ok: false; error: string };

let nextId = 1;
const TOOL_NAME = /^[A-Za-z_][\w.-]*$/;
const HIT = /^\s*(>=|>|==|%)?\s*(\d+)\s*$/;

function parseSpec(text: string): BreakpointSpec | string {
  const t = text.trim();
  if (t === "") return "empty breakpoint: write a tool name (bash), observation:/regex/, error, or reward<0.5";
  if (t === "error") return { kind: "error" };
  const obs = /^observation\s*:\s*(.*)$/s.exec(t);
  if (obs) {
    const body = obs[1] ?? "";
    const lit = /^\/(.*)\/([a-z]*)$/s.exec(body);
    try {
      return {
        kind: "observation",
        pattern: lit ? new RegExp(lit[1] ?? "", lit[2]) : new RegExp(body.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
      };
    } catch (e) {
      return `bad observation pattern ${body}: ${(e as Error).message}`;
    }
  }
  const rw = /^reward(?:\s*:\s*([^<]+?))?\s*<\s*(.+)$/.exec(t);
  if (rw) {
    const below = Number(rw[2]);
    if (!Number.isFinite(below))
      return `reward breakpoint needs a number after '<' (got '${rw[2]}'), e.g. reward<0.5 or reward:hidden-check<1`;
    return { kind: "reward", below, ...(rw[1] ? { component: rw[1].trim() } : {}) };
  }
  if (t.startsWith("reward")) return `bad reward breakpoint '${t}': write reward<VALUE or reward:COMPONENT<VALUE`;
  const tool = t.startsWith("tool:") ? t.slice(5).trim() : t;
  if (!TOOL_NAME.test(tool))
    return `bad breakpoint '${t}': not a tool name; write a tool name (bash), observation:/regex/, error, or reward<0.5`;
  return { kind: "tool", tool };
}

function checkCondition(condition: string | undefined): string | undefined {
  if (!condition?.trim()) return undefined;
  try {
    new vm.Script(`(${condition})`);
    return undefined;
  } catch (e) {
    return `bad condition '${condition}': ${(e as Error).message}`;
  }
}

function checkHit(hit: string | undefined): string | undefined {
  if (!hit?.trim() || HIT.test(hit)) return undefined;
  return `bad hit count '${hit}': write N, >=N, >N, ==N or %N`;
}

/** Parses one function breakpoint; the error says how to write it. */
export function parseBreakpoint(text: string, opts: { condition?: string; hitCondition?: string } = {}): ParseResult {
  const spec = parseSpec(text);
  if (typeof spec === "string") return { ok: false, error: spec };
  return withOptions(text.trim(), spec, opts);
}

/** A line breakpoint on a task's line (tasks.jsonl) or its task.yaml: pause before every tool call of that task. */
export function taskBreakpoint(file: string, line: number, opts: { condition?: string; hitCondition?: string } = {}): ParseResult {
  return withOptions(`${file}:${line}`, { kind: "task", file, line }, opts);
}

function withOptions(text: string, spec: BreakpointSpec, opts: { condition?: string; hitCondition?: string }): ParseResult {
  const bad = checkCondition(opts.condition) ?? checkHit(opts.hitCondition);
  if (bad) return { ok: false, error: bad };
  const condition = opts.condition?.trim();
  const hitCondition = opts.hitCondition?.trim();
  return {
    ok: true,
    breakpoint: { id: nextId++, text, spec, ...(condition ? { condition } : {}), ...(hitCondition ? { hitCondition } : {}), hits: 0 },
  };
}

/** Whether the condition holds; a condition that throws or runs past 100 ms counts as true so the user sees it. */
function conditionHolds(bp: Breakpoint, ctx: BreakContext): boolean {
  if (!bp.condition) return true;
  const r = evaluateExpression(bp.condition, ctx);
  return r.ok ? Boolean(r.value) : true;
}

function hitHolds(bp: Breakpoint): boolean {
  const m = bp.hitCondition ? HIT.exec(bp.hitCondition) : null;
  if (!m) return true;
  const n = Number(m[2]);
  switch (m[1]) {
    case ">":
      return bp.hits > n;
    case "==":
      return bp.hits === n;
    case "%":
      return n > 0 && bp.hits % n === 0;
    default:
      return bp.hits >= n;
  }
}

/** Counts a hit on a breakpoint whose spec matched and tells whether to stop (condition, then hit count). */
function fire(bp: Breakpoint, ctx: BreakContext): boolean {
  if (!conditionHolds(bp, ctx)) return false;
  bp.hits++;
  return hitHolds(bp);
}

/** The first breakpoint that stops before a tool call of `taskSource`'s task. */
export function beforeToolHit(
  bps: readonly Breakpoint[],
  ctx: BreakContext,
  taskSource: { file: string; line: number },
): Breakpoint | undefined {
  return bps.find((bp) => {
    if (bp.spec.kind === "tool") return bp.spec.tool === ctx.tool && fire(bp, ctx);
    if (bp.spec.kind === "task") return samePath(bp.spec.file, taskSource.file) && bp.spec.line === taskSource.line && fire(bp, ctx);
    return false;
  });
}

/** The first breakpoint that stops after an observation (pattern, or `error` on a failed call: error status or non-zero exit). */
export function afterObservationHit(bps: readonly Breakpoint[], ctx: BreakContext & { error: boolean }): Breakpoint | undefined {
  return bps.find((bp) => {
    if (bp.spec.kind === "observation") return bp.spec.pattern.test(ctx.observation ?? "") && fire(bp, ctx);
    if (bp.spec.kind === "error") return ctx.error && fire(bp, ctx);
    return false;
  });
}

/** The first breakpoint that stops at the end: a reward below its value, or `error` when the rollout failed. */
export function atEndHit(bps: readonly Breakpoint[], ctx: BreakContext): Breakpoint | undefined {
  return bps.find((bp) => {
    if (bp.spec.kind === "error") return ctx.status === "error" && fire(bp, ctx);
    if (bp.spec.kind !== "reward") return false;
    const value = bp.spec.component === undefined ? ctx.reward : ctx.components?.[bp.spec.component];
    return typeof value === "number" && value < bp.spec.below && fire(bp, ctx);
  });
}

/** Reward breakpoints naming a component the environment does not have: told to the user, not silently dead. */
export function unknownComponent(bp: Breakpoint, components: readonly string[]): string | undefined {
  if (bp.spec.kind !== "reward" || bp.spec.component === undefined || components.includes(bp.spec.component)) return undefined;
  return `no reward component '${bp.spec.component}'; the components are: ${components.join(", ")}`;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, "/").replace(/^([a-z]):/, (_m, d: string) => `${d.toUpperCase()}:`);
  return norm(a) === norm(b);
}

import type { RewardComponent } from "../schema/trajectory";

/** Full marks, allowing the hair a floating sum of weights may land under 1. */
const FULL = 1 - 1e-9;
const MAX_LINE = 240;

const clip = (s: string, n = MAX_LINE) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The line of a program's output that says what went wrong: a Python exception's own line
 * (the last of a traceback, not its "Traceback (most recent call last):" header), else the
 * first line that is not blank. Tool prefixes such as pytest's "ERROR: " are dropped.
 */
export function telltaleLine(text: string | undefined): string | null {
  if (!text) return null;
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^…/.test(l));
  if (lines.length === 0) return null;
  const exception = lines.findLast((l) => /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b/.test(l) && !/^Traceback\b/.test(l));
  const named = lines.find((l) => /^(ERROR|error|fatal|FATAL)\b[:\s]/.test(l));
  const pick = exception ?? named ?? lines.find((l) => !/^Traceback\b/.test(l)) ?? lines[0]!;
  return clip(pick.replace(/^(ERROR|error)\s*:\s*/, ""));
}

function stringField(v: unknown, key: string): string | undefined {
  if (!v || typeof v !== "object") return undefined;
  const x = (v as Record<string, unknown>)[key];
  return typeof x === "string" ? x : undefined;
}

/** The first failing field of a `fields` component, as "field: why". */
function firstFailingField(details: unknown): string | null {
  const fields = details && typeof details === "object" ? (details as { fields?: unknown }).fields : undefined;
  if (!Array.isArray(fields)) return null;
  const bad = fields.find((f) => f && typeof f === "object" && (f as { passed?: unknown }).passed === false) as
    | Record<string, unknown>
    | undefined;
  if (!bad) return null;
  const why = stringField(bad, "error") ?? stringField(bad, "reason") ?? "wrong";
  return `${String(bad.field)}: ${why.split("\n")[0]}`;
}

/** Whether a component counts as a failure: it errored, or it scored under full marks. Skipped ones are not failures. */
export function componentFailed(c: RewardComponent): boolean {
  if (c.skipped) return false;
  return c.error !== undefined || c.passed === false || c.score < FULL;
}

/**
 * Why one reward component did not pass, in one line: its name, its reason or error, and
 * the first telling line of what it ran (stderr, then stdout) or of its first failing field,
 * e.g. "tests: no tests ran — file or directory not found: tests_hiden". Null when it passed.
 */
export function componentFailure(c: RewardComponent): string | null {
  if (!componentFailed(c)) return null;
  const head = (c.error ?? c.reason ?? `scored ${c.score.toFixed(2)}`).split("\n")[0]!.trim();
  const d = c.details;
  const detail = firstFailingField(d) ?? telltaleLine(stringField(d, "stderr")) ?? telltaleLine(stringField(d, "stdout"));
  const extra = detail && !head.includes(detail) ? ` — ${detail}` : "";
  return clip(`${c.name}: ${head}${extra}`, 2 * MAX_LINE);
}

/** The key a failure is counted under in a run's summary: the component and its reason, without the per-rollout detail. */
export function failureKey(c: RewardComponent): string | null {
  if (!componentFailed(c)) return null;
  const head = (c.error ?? c.reason ?? "scored under full marks").split("\n")[0]!.trim();
  // Values that differ from rollout to rollout ("3/5 tests passed") are kept: they say how bad.
  return clip(`${c.name}: ${head}`);
}

/**
 * Why a rollout fell short, in one line: for one that was scored, each failing component's
 * line (see componentFailure) joined with "; "; for one that ended before it could be
 * scored, its status and reason. Undefined when it earned full marks.
 */
export function rolloutFailure(r: {
  status: string;
  reason?: string | undefined;
  reward: number | null;
  components?: readonly RewardComponent[] | undefined;
}): string | undefined {
  if (r.reward === null) return r.status === "completed" ? r.reason : `${r.status}${r.reason ? `: ${r.reason.split("\n")[0]}` : ""}`;
  if (r.reward >= FULL) return undefined;
  const lines = (r.components ?? []).flatMap((c) => {
    const f = componentFailure(c);
    return f ? [f] : [];
  });
  const scored = lines.length > 0 ? lines.join("; ") : `reward ${r.reward.toFixed(3)}`;
  // A rollout that ran out of turns or time is graded on what it left: say so too.
  return r.status === "completed" ? scored : `${r.status}${r.reason ? ` (${r.reason.split("\n")[0]})` : ""}; ${scored}`;
}

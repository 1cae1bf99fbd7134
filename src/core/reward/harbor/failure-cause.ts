import type { TrajectoryEvent } from "../../schema/trajectory";
import { clip, lastTellingLine } from "../../util/telling-line";

/** The oracle command's last line (see oracle-command.ts and native-solution.ts): solve.sh's exit status (the bash tool adds its own after). */
const SOLVE_EXIT = /^\[solve\.sh exited (-?\d+)\]$/gm;

/**
 * How the oracle's solve.sh ended, when this rollout ran it and it failed: "solve.sh exited 2:
 * E: Unable to locate package x". Null when no solve.sh ran (an agent's rollout) or it exited 0.
 */
export function solveFailure(events: readonly TrajectoryEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e?.type !== "observation") continue;
    const output = typeof e.output === "string" ? e.output : e.output.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
    const m = [...output.matchAll(SOLVE_EXIT)].at(-1);
    if (!m) continue;
    if (m[1] === "0") return null;
    const line = lastTellingLine(output.slice(0, m.index));
    return `solve.sh exited ${m[1]}${line ? `: ${line}` : ""}`;
  }
  return null;
}

/**
 * The tests that failed, from pytest's short summary ("FAILED path::test - message", printed
 * by default and under -rA) in test.sh's output: the first few, each clipped.
 */
export function failedTests(summaryLines: string): string[] {
  return summaryLines
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^(FAILED|ERROR) /.test(l))
    .slice(0, 3)
    .map((l) => clip(l.replace(/^(FAILED|ERROR) (\.\.\/)*\/?tests\//, "$1 "), 240));
}

/** What made a Harbor verification fall short, for the first line of its reason: the failing tests, then solve.sh's failure. */
export function harborCause(opts: { failed: string[]; exitCode: number | null | undefined; solve: string | null }): string {
  const parts: string[] = [];
  if (opts.failed.length > 0) parts.push(opts.failed.join("; "));
  else if (opts.exitCode !== 0 && opts.exitCode !== undefined && opts.exitCode !== null) parts.push(`test.sh exited ${opts.exitCode}`);
  if (opts.solve) parts.push(opts.solve);
  return parts.join("; ");
}

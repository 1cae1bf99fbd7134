import type { ExecStatus, Sandbox } from "../../model/sandbox";
import type { StdioCase } from "../../schema/verifier";

/** Per-case seconds when a case gives none: generous for an interpreter start plus a small program. */
export const DEFAULT_CASE_TIMEOUT_S = 10;
const KEEP_CHARS = 2000;

export interface StdioCaseResult {
  index: number;
  passed: boolean;
  status: ExecStatus;
  exit_code: number | null;
  /** Why a case failed: wrong output, non-zero exit, timeout, out of memory. */
  reason?: string;
  stdin: string;
  expected: string;
  stdout: string;
  stderr: string;
  duration_ms: number;
}

/**
 * Output compared the way judges for such tasks compare: line endings unified, each line's
 * runs of spaces and tabs collapsed and trimmed, blank lines at the end dropped.
 */
export function normalizeOutput(text: string): string {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.trim().replace(/[ \t]+/g, " "));
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines.join("\n");
}

const cut = (s: string) => (s.length > KEEP_CHARS ? `${s.slice(0, KEEP_CHARS)}… [${s.length - KEEP_CHARS} more chars]` : s);

/**
 * Run a program once per case with the case's stdin, each under its own timeout, and
 * record pass/fail, stderr and how it ended. Cases run one after another: the sandbox's
 * CPU limit is shared, and a timing-out case must not slow its neighbours.
 */
export async function runStdioCases(
  sandbox: Sandbox,
  program: string,
  cases: readonly StdioCase[],
  opts: { signal?: AbortSignal; defaultTimeoutS?: number } = {},
): Promise<StdioCaseResult[]> {
  const results: StdioCaseResult[] = [];
  for (const [index, c] of cases.entries()) {
    const timeoutS = c.timeout ?? opts.defaultTimeoutS ?? DEFAULT_CASE_TIMEOUT_S;
    const r = await sandbox.exec(["bash", "-c", program], {
      stdin: c.stdin,
      timeoutMs: timeoutS * 1000,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const same = normalizeOutput(r.stdout) === normalizeOutput(c.stdout);
    const passed = r.status === "ok" && r.exitCode === 0 && same;
    let reason: string | undefined;
    if (r.status !== "ok") reason = r.reason ?? r.status;
    else if (r.exitCode !== 0) reason = `exit code ${r.exitCode}`;
    else if (!same) reason = "wrong output";
    results.push({
      index,
      passed,
      status: r.status,
      exit_code: r.exitCode,
      ...(reason ? { reason } : {}),
      stdin: cut(c.stdin),
      expected: cut(c.stdout),
      stdout: cut(r.stdout),
      stderr: cut(r.stderr),
      duration_ms: r.durationMs,
    });
  }
  return results;
}

/** A short text report of case results for an observation or a reward reason. */
export function formatStdioResults(results: readonly StdioCaseResult[]): string {
  const passed = results.filter((r) => r.passed).length;
  const lines = [`${passed}/${results.length} cases passed`];
  for (const r of results) {
    if (r.passed) {
      lines.push(`case ${r.index + 1}: passed`);
      continue;
    }
    lines.push(`case ${r.index + 1}: FAILED (${r.reason ?? "failed"})`);
    lines.push(`  input:    ${JSON.stringify(r.stdin)}`);
    lines.push(`  expected: ${JSON.stringify(r.expected)}`);
    lines.push(`  got:      ${JSON.stringify(r.stdout)}`);
    if (r.stderr.trim()) lines.push(`  stderr:\n${r.stderr.replace(/^/gm, "    ")}`);
  }
  return lines.join("\n");
}

import type { VerifyContext } from "../../model/domain";
import type { Sandbox } from "../../model/sandbox";
import { NO_GRADED_FIELDS, type BuiltinVerifier } from "../verifier-entry";
import { testsHarborLines } from "./tests-harbor";
import type { VerifierConfig } from "../../schema/verifier";
import { runChecked, tail } from "../exec-in-sandbox";
import { stopLeftovers } from "../stop-leftovers";
import { newSentinel, printedSentinel, SENTINEL_MISSING } from "../sentinel";
import { parseJUnit, parsePytestSummary, parseTap, type TestCounts } from "../test-reports";
import { writeTaskFiles } from "../../sandbox/task-files";
import { judgedCommand } from "../judged-command";

type TestsConfig = Extract<VerifierConfig, { type: "tests" }>;

/** Trailing spaces on each line and trailing newlines never decide a stdio case. */
const normalizeStdout = (s: string) => s.replace(/[ \t]+$/gm, "").replace(/\n+$/, "");

/**
 * Runs tests in the sandbox after the task's hidden test files are copied in (the agent
 * never sees them), and scores passed/total (or all-or-nothing with mode: all).
 */
export const testsVerifier: BuiltinVerifier<TestsConfig> = {
  type: "tests",
  gradedFields: NO_GRADED_FIELDS,
  harbor: { kind: "exec", lines: testsHarborLines },
  async verify(config, ctx) {
    const hidden = ctx.task.tests;
    const sb = await ctx.sandbox();
    await stopLeftovers(sb);
    if (hidden?.files && Object.keys(hidden.files).length > 0) await writeTaskFiles(sb, hidden.files);
    let counts: TestCounts;
    let details: Record<string, unknown> = {};
    if (config.format === "stdio") ({ counts, details } = await runStdioCases(config, ctx, sb));
    else {
      const command = hidden?.command ?? config.command;
      if (!command) throw new Error("tests needs a command (on the verifier or in the task's tests.command)");
      const token = config.sentinel ? newSentinel() : null;
      // Test files named rather than globbed, a hidden Python check isolated and off the disk before the code it checks runs.
      const run = judgedCommand(command, Object.keys(hidden?.files ?? {}));
      const r = await runChecked(ctx, run, token ? { stdin: `${token}\n` } : {});
      details = { exit_code: r.exitCode, stdout: tail(r.stdout), stderr: tail(r.stderr, 1000) };
      if (token && !printedSentinel(r.stdout, token)) {
        // Exit status and reports are whatever the code under test left behind: none of it counts.
        return { score: 0, passed: false, reason: SENTINEL_MISSING, details: { ...details, sentinel: "missing" } };
      }
      if (config.format === "exit-code") {
        counts =
          r.exitCode === 0 ? { passed: 1, failed: 0, skipped: 0, failures: [] } : { passed: 0, failed: 1, skipped: 0, failures: [command] };
      } else if (config.format === "tap") {
        counts = parseTap(r.stdout);
      } else {
        const report = config.report ? (await sb.readFiles([config.report]))[config.report] : null;
        if (report) counts = parseJUnit(report.toString("utf8"));
        else if (config.format === "pytest") {
          const summary = parsePytestSummary(`${r.stdout}\n${r.stderr}`);
          if (!summary) throw new Error(`could not find pytest's summary line in the output (exit ${r.exitCode})`);
          counts = summary;
        } else throw new Error(`the JUnit report '${config.report ?? "(report not set)"}' was not written (exit ${r.exitCode})`);
        // pytest exits 0 only when every test it ran passed: a summary (or report) that says otherwise
        // was printed by the code under test (past the truncation of a flood of output, say), not by pytest.
        if (config.format === "pytest" && r.exitCode !== 0 && counts.failed === 0) {
          counts = {
            passed: 0,
            failed: 1,
            skipped: 0,
            failures: [`pytest exited with status ${r.exitCode ?? "(killed)"}, so the passing summary is not its own`],
          };
        }
      }
    }
    const total = counts.passed + counts.failed;
    const allPassed = total > 0 && counts.failed === 0;
    const score = total === 0 ? 0 : config.mode === "all" ? (allPassed ? 1 : 0) : counts.passed / total;
    return {
      score,
      passed: allPassed,
      reason: total === 0 ? "no tests ran" : `${counts.passed}/${total} tests passed${counts.skipped ? `, ${counts.skipped} skipped` : ""}`,
      details: { ...details, passed: counts.passed, total, skipped: counts.skipped, failures: counts.failures.slice(0, 50) },
    };
  },
};

/** The stdio format: each case's stdin through the program, its stdout compared with the case's (whitespace-normalised). */
async function runStdioCases(
  config: TestsConfig,
  ctx: VerifyContext,
  sb: Sandbox,
): Promise<{ counts: TestCounts; details: Record<string, unknown> }> {
  const hidden = ctx.task.tests;
  const program = config.program ?? hidden?.command ?? config.command;
  if (!program) throw new Error("tests (stdio) needs 'program': the command that runs the submitted program");
  const cases = hidden?.cases ?? [];
  if (cases.length === 0) throw new Error(`task '${ctx.task.id}' has no tests.cases for the stdio format`);
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const results: Array<Record<string, unknown>> = [];
  for (const [i, c] of cases.entries()) {
    const timeoutMs = c.timeout ? c.timeout * 1000 : ctx.timeoutMs;
    const r = await sb.exec(program, { stdin: c.stdin, timeoutMs, signal: ctx.signal });
    const ok = r.status === "ok" && r.exitCode === 0 && normalizeStdout(r.stdout) === normalizeStdout(c.stdout);
    if (ok) counts.passed++;
    else {
      counts.failed++;
      counts.failures.push(`case ${i + 1}`);
    }
    results.push({
      case: i + 1,
      passed: ok,
      status: r.status,
      exit_code: r.exitCode,
      expected: c.stdout,
      got: tail(r.stdout, 500),
      stderr: tail(r.stderr, 500),
    });
  }
  return { counts, details: { cases: results } };
}

import { executablePaths, sandboxFiles } from "../../model/file-content";
import { newSentinel, printedSentinel, SENTINEL_MISSING } from "../../reward/sentinel";
import { stopLeftovers } from "../../reward/stop-leftovers";
import { parseJUnit, parsePytestSummary, parseTap, type TestCounts } from "../../reward/test-reports";
import type { ExecResult, Sandbox } from "../../model/sandbox";
import type { VerifierConfig } from "../../schema/verifier";
import type { Verifier, VerifyContext } from "../../model/domain";
import { describeCompileError } from "./compile-error";
import { copyFailure, SIMPLE_COMMAND, withFilesWritten, writeWorkdirFiles } from "./sandbox-files";
import { runStdioCases } from "./stdio-cases";
import { markExecutable } from "../../sandbox/task-files";
import { judgedCommand } from "../../reward/judged-command";

type TestsConfig = Extract<VerifierConfig, { type: "tests" }>;
type Outcome = Awaited<ReturnType<Verifier["verify"]>>;

const DETAIL_CHARS = 4000;
const tail = (s: string, n = DETAIL_CHARS) => (s.length > n ? `…${s.slice(-n)}` : s);

function score(counts: TestCounts, mode: TestsConfig["mode"], compile: string | null, extra: Record<string, unknown>): Outcome {
  const total = counts.passed + counts.failed;
  const allPassed = total > 0 && counts.failed === 0;
  const value = total === 0 ? 0 : mode === "all" ? (allPassed ? 1 : 0) : counts.passed / total;
  const summary =
    total === 0 ? "no tests ran" : `${counts.passed}/${total} tests passed${counts.skipped ? `, ${counts.skipped} skipped` : ""}`;
  return {
    score: value,
    passed: allPassed,
    reason: compile && !allPassed ? `${compile} (${summary})` : summary,
    details: {
      ...extra,
      ...(compile ? { compile_error: compile } : {}),
      passed: counts.passed,
      total,
      skipped: counts.skipped,
      failures: counts.failures.slice(0, 50),
    },
  };
}

async function verifyStdio(config: TestsConfig, ctx: VerifyContext): Promise<Outcome> {
  const program = config.program ?? ctx.task.tests?.command ?? config.command;
  if (!program)
    throw new Error("tests (format: stdio) needs 'program': the command that runs the submitted program, e.g. python3 solution.py");
  const cases = ctx.task.tests?.cases ?? [];
  if (cases.length === 0) throw new Error(`task '${ctx.task.id}' has no tests.cases for the stdio format`);
  const sb = await ctx.sandbox();
  await stopLeftovers(sb);
  const results = await runStdioCases(sb, program, cases, { signal: ctx.signal });
  const broken = results.find((r) => r.status === "error");
  if (broken) throw new Error(`the sandbox failed while running case ${broken.index + 1}: ${broken.reason ?? "no reason given"}`);
  const failures = results.filter((r) => !r.passed).map((r) => `case ${r.index + 1}: ${r.reason ?? "failed"}`);
  const passed = results.length - failures.length;
  const compile = results.map((r) => describeCompileError(r.stderr)).find((c) => c !== null) ?? null;
  return score({ passed, failed: failures.length, skipped: 0, failures }, config.mode, compile, { cases: results });
}

async function verifyCommand(config: TestsConfig, ctx: VerifyContext): Promise<Outcome> {
  const command = ctx.task.tests?.command ?? config.command;
  if (!command) throw new Error("tests needs a command (on the verifier or in the task's tests.command)");
  // Test files named rather than globbed, a hidden Python check isolated and off the disk before the code it checks runs.
  const run = judgedCommand(command, Object.keys(ctx.task.tests?.files ?? {}));
  const sb = await ctx.sandbox();
  await stopLeftovers(sb);
  // Stop the tests a little before the verifier's own deadline, so a runaway submission is
  // recorded as this verifier's failure with its reason rather than as a verifier time-out.
  const budgetMs = Math.max(500, Math.min(ctx.timeoutMs - 2000, ctx.timeoutMs * 0.8));
  // The hidden files are copied in by the same exec that runs the tests: one round trip.
  const files = sandboxFiles(ctx.task.tests?.files);
  const token = config.sentinel ? newSentinel() : null;
  const opts = { timeoutMs: budgetMs, signal: ctx.signal, ...(token ? { stdin: `${token}\n` } : {}) };
  let r: ExecResult;
  if (executablePaths(ctx.task.tests?.files).length > 0) {
    // An executable hidden file needs its mode before the command starts: written first, then marked.
    await writeWorkdirFiles(sb, files, ctx.timeoutMs, ctx.signal, true);
    await markExecutable(sb, ctx.task.tests?.files);
    r = await sb.exec(["bash", "-c", run], opts);
  } else if (sb.putWorkdirFiles) {
    // The sandbox writes them itself just before the command starts; a command of plain words
    // is run as such (the sandbox's exec of a command line spares the shell where it can).
    const writeFirst = Object.keys(files).length > 0 ? { writeFirst: { files, links: "replace" as const } } : {};
    r = await sb.exec(SIMPLE_COMMAND.test(run) ? run : ["bash", "-c", run], { ...opts, ...writeFirst });
  } else {
    let argv = withFilesWritten(sb.workdir, files, run);
    if (!argv) {
      await writeWorkdirFiles(sb, files, ctx.timeoutMs, ctx.signal, true);
      argv = ["bash", "-c", run];
    }
    r = await sb.exec(argv, opts);
  }
  const copy = copyFailure(r.stderr);
  if (copy) throw new Error(copy);
  if (r.status === "error") throw new Error(`the sandbox failed running '${command}': ${r.reason ?? tail(r.stderr, 300)}`);
  const output = `${r.stdout}\n${r.stderr}`;
  const compile = describeCompileError(output);
  const details = { command, status: r.status, exit_code: r.exitCode, stdout: tail(r.stdout), stderr: tail(r.stderr) };
  // The submitted code ran away (endless loop, fork bomb, memory hog): a failed task, not a broken verifier.
  if (r.status !== "ok") {
    return {
      score: 0,
      passed: false,
      reason: `the hidden tests were stopped: ${r.reason ?? r.status}`,
      details: { ...details, ...(compile ? { compile_error: compile } : {}) },
    };
  }
  // With a sentinel, what the code under test left behind (exit status, reports) counts only when
  // the tests ran to the end; a failure they report anyway keeps its own, more telling reason.
  const missing = token !== null && !printedSentinel(r.stdout, token);
  const noSentinel: Outcome = {
    score: 0,
    passed: false,
    reason: SENTINEL_MISSING,
    details: { ...details, sentinel: "missing", ...(compile ? { compile_error: compile } : {}) },
  };
  let counts: TestCounts;
  try {
    counts = await countTests(config, command, r, sb, output, compile);
  } catch (e) {
    if (missing) return noSentinel;
    throw e;
  }
  if (missing && counts.passed > 0) return noSentinel;
  const outcome = score(counts, config.mode, compile, details);
  const why = !outcome.passed && !compile ? lastErrorLine(r.stderr) : null;
  return why ? { ...outcome, reason: `${outcome.reason}: ${why}` } : outcome;
}

/** Passed/failed counts from the run's exit status, TAP output, JUnit report or pytest summary; throws when none is there. */
async function countTests(
  config: TestsConfig,
  command: string,
  r: ExecResult,
  sb: Sandbox,
  output: string,
  compile: string | null,
): Promise<TestCounts> {
  if (config.format === "exit-code") {
    return r.exitCode === 0
      ? { passed: 1, failed: 0, skipped: 0, failures: [] }
      : { passed: 0, failed: 1, skipped: 0, failures: [`${command} (exit ${r.exitCode})`] };
  }
  if (config.format === "tap") return parseTap(r.stdout);
  const report = config.report ? ((await sb.readFiles([config.report]))[config.report] ?? null) : null;
  const summary = config.format === "pytest" ? parsePytestSummary(output) : null;
  const counts = report ? parseJUnit(report.toString("utf8")) : summary;
  // pytest exits 0 only when every test it ran passed: a passing summary (or report) while it exits
  // otherwise was printed by the code under test (past the truncation of a flood of output, say).
  if (counts && config.format === "pytest" && r.exitCode !== 0 && counts.failed === 0) {
    return {
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: [`pytest exited with status ${r.exitCode ?? "(killed)"}, so the passing summary is not its own`],
    };
  }
  if (counts) return counts;
  if (compile) return { passed: 0, failed: 1, skipped: 0, failures: [compile] };
  if (config.format === "pytest") throw new Error(`pytest printed no summary line (exit ${r.exitCode}): ${tail(output, 500)}`);
  throw new Error(`the JUnit report '${config.report ?? "(report not set)"}' was not written (exit ${r.exitCode})`);
}

/**
 * The exception a failing Python run ended with ("AssertionError", "OSError: [Errno 30] …"),
 * for the reason line: the last such line, since forked processes interleave their output.
 */
function lastErrorLine(stderr: string): string | null {
  const lines = stderr.split("\n").map((l) => l.trim());
  const last = lines.findLast((l) => /^[\w.]*(Error|Exception|Interrupt|Exit)\b/.test(l));
  if (!last) return null;
  return last.length > 300 ? `${last.slice(0, 300)}…` : last;
}

/**
 * The code domain's `tests` verifier: the hidden test files are copied in only now, after
 * submit. Unlike a generic runner it treats submitted code that hangs, forks without end
 * or exhausts memory as a failed task with the reason, names a syntax error as such, and
 * judges stdio cases exactly as run_tests does (per-case timeout, whitespace normalised,
 * stderr kept).
 */
export const codeTestsVerifier: Verifier<TestsConfig> = {
  type: "tests",
  async verify(config, ctx) {
    // Hidden files are copied in only now, through the sandbox, so a link the agent planted
    // cannot redirect them. The command formats copy them in the exec that runs the tests.
    if (config.format !== "stdio") return verifyCommand(config, ctx);
    const sb = await ctx.sandbox();
    await writeWorkdirFiles(sb, sandboxFiles(ctx.task.tests?.files), ctx.timeoutMs, ctx.signal, true);
    await markExecutable(sb, ctx.task.tests?.files);
    return verifyStdio(config, ctx);
  },
};

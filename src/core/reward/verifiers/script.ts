import { NO_GRADED_FIELDS, type BuiltinVerifier } from "../verifier-entry";
import type { VerifierConfig } from "../../schema/verifier";
import { runChecked, tail } from "../exec-in-sandbox";
import { telltaleLine } from "../../runs/failure";
import { stopLeftovers } from "../stop-leftovers";
import { SCRIPT_INPUT_DIR, SCRIPT_INPUT_FILE, SCRIPT_TRAJECTORY_FILE, scriptEnvironment, scriptInput } from "../script-input";

type ScriptConfig = Extract<VerifierConfig, { type: "script" }>;

/**
 * A command in the sandbox prints its score: a number, or {"score": x, "reason": "…"} on its
 * last line. It sees what it grades: the task (id, prompt, metadata, target), the submitted
 * answer and the trajectory, as JSON on stdin (also in the file $RLENV_INPUT) and as RLENV_*
 * variables; the trajectory is a JSONL file at $RLENV_TRAJECTORY. See script-input.ts.
 */
export const scriptVerifier: BuiltinVerifier<ScriptConfig> = {
  type: "script",
  gradedFields: NO_GRADED_FIELDS,
  harbor: {
    kind: "exec",
    lines: (config, ctx) => [`score_${ctx.index}=$( ( ${config.command} ) | python3 ${ctx.addProgram("script_score.py")} )`],
  },
  async verify(config, ctx) {
    const input = scriptInput(ctx, { name: config.name ?? config.type, weight: config.weight });
    const stdin = JSON.stringify(input);
    const sb = await ctx.sandbox();
    await stopLeftovers(sb);
    // The inputs go outside the workdir, so the files being graded stay exactly as the agent left them.
    const trajectory = ctx.events.map((e) => JSON.stringify(e)).join("\n");
    const put = await sb.exec(["sh", "-c", `mkdir -p ${SCRIPT_INPUT_DIR} && cat > ${SCRIPT_INPUT_FILE}`], {
      stdin,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
    });
    if (put.status !== "ok" || put.exitCode !== 0)
      throw new Error(`could not write the script's input in the sandbox: ${put.reason ?? tail(put.stderr, 300)}`);
    const putT = await sb.exec(["sh", "-c", `cat > ${SCRIPT_TRAJECTORY_FILE}`], {
      stdin: trajectory ? `${trajectory}\n` : "",
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
    });
    if (putT.status !== "ok" || putT.exitCode !== 0)
      throw new Error(`could not write the trajectory in the sandbox: ${putT.reason ?? tail(putT.stderr, 300)}`);
    const r = await runChecked(ctx, config.command, { stdin, env: scriptEnvironment(input) });
    const last = r.stdout.trimEnd().split("\n").pop()?.trim() ?? "";
    let parsed: unknown;
    try {
      parsed = JSON.parse(last);
    } catch {
      // The first line of the message is what failure lines show: the script's own error, when it printed one.
      const why = telltaleLine(r.stderr);
      throw new Error(
        `${why ? `${why} (exit ${r.exitCode}; no score printed)` : `the script's last line is not JSON (exit ${r.exitCode}): '${last.slice(0, 200)}'`}${r.stderr ? `\nstderr: ${tail(r.stderr, 1000)}` : ""}`,
      );
    }
    const obj = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : { score: parsed };
    const score = obj.score;
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1)
      throw new Error(`the script's score must be a number in [0, 1], got ${JSON.stringify(score)}`);
    return {
      score,
      passed: typeof obj.passed === "boolean" ? obj.passed : score >= 1,
      ...(typeof obj.reason === "string" ? { reason: obj.reason } : {}),
      details: { exit_code: r.exitCode, output: obj, stderr: tail(r.stderr, 1000) },
    };
  },
};

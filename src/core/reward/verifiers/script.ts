import type { Verifier } from "../../domains/types";
import type { VerifierConfig } from "../../schema/verifier";
import { runChecked, tail } from "../exec-in-sandbox";
import { telltaleLine } from "../failure";

type ScriptConfig = Extract<VerifierConfig, { type: "script" }>;

/** A command in the sandbox prints its score: a number, or {"score": x, "reason": "…"} on its last line. */
export const scriptVerifier: Verifier<ScriptConfig> = {
  type: "script",
  async verify(config, ctx) {
    const r = await runChecked(ctx, config.command);
    const last = r.stdout.trimEnd().split("\n").pop()?.trim() ?? "";
    let parsed: unknown;
    try {
      parsed = JSON.parse(last);
    } catch {
      // The first line of the message is what failure lines show: the script's own error, when it printed one.
      const why = telltaleLine(r.stderr);
      throw new Error(`${why ? `${why} (exit ${r.exitCode}; no score printed)` : `the script's last line is not JSON (exit ${r.exitCode}): '${last.slice(0, 200)}'`}${r.stderr ? `\nstderr: ${tail(r.stderr, 1000)}` : ""}`);
    }
    const obj = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : { score: parsed };
    const score = obj.score;
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) throw new Error(`the script's score must be a number in [0, 1], got ${JSON.stringify(score)}`);
    return {
      score,
      passed: typeof obj.passed === "boolean" ? obj.passed : score >= 1,
      ...(typeof obj.reason === "string" ? { reason: obj.reason } : {}),
      details: { exit_code: r.exitCode, output: obj, stderr: tail(r.stderr, 1000) },
    };
  },
};

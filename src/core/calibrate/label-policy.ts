import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { PlannedPolicy } from "../policy/scripted";
import { ReplayPolicy } from "../policy/replay";
import { submitArguments } from "../policy/submit-name";
import type { Policy } from "../policy/types";
import { finalSentence } from "./final-sentence";
import type { CalibrationLabel } from "./labels";

export interface SubmitOptions {
  /** Submit the label's final sentence (its `final_answer`, else the reply's last sentence) instead of the whole reply. */
  finalSentence: boolean;
  /** The report field a text answer goes in (default "answer"). */
  field: string;
  /** Cite the task's evidence pages when the label's report cites none (labels written without citations). */
  citeEvidence: boolean;
}

/** The tool that ends a rollout here: the document domain's `submit_report` when the environment offers it, else `submit`. */
export function submitToolOf(env: Environment): string {
  return env.builtinTools.includes("submit_report") ? "submit_report" : "submit";
}

/** The text a label submits: the whole reply, or its final sentence; a report object is submitted as it is. */
export function submittedText(
  label: CalibrationLabel,
  opts: Pick<SubmitOptions, "finalSentence">,
): string | Record<string, unknown> | undefined {
  const a = label.answer;
  if (!opts.finalSentence || typeof a !== "string") return a;
  return label.finalAnswer ?? finalSentence(a);
}

function evidenceOf(task: LoadedTask): unknown[] {
  const ev = (task.target as { evidence?: unknown } | undefined)?.evidence;
  return Array.isArray(ev) ? ev : [];
}

/**
 * What goes to the submit tool: a text answer in its field of a report where the environment
 * grades reports (submit_report, or a `fields` verifier), with the citations the options give;
 * the text itself elsewhere (exact, numeric, judge of the whole answer).
 */
export function reportOf(label: CalibrationLabel, task: LoadedTask, env: Environment, opts: SubmitOptions): unknown {
  const answer = submittedText(label, opts);
  const tool = submitToolOf(env);
  const graded = tool === "submit_report" || env.manifest.reward.some((v) => v.type === "fields");
  if (!graded || answer === undefined) return answer;
  const report: Record<string, unknown> = typeof answer === "string" ? { [opts.field]: answer } : { ...answer };
  if (tool === "submit_report" && (!Array.isArray(report.citations) || (opts.citeEvidence && report.citations.length === 0)))
    report.citations = opts.citeEvidence ? evidenceOf(task) : [];
  return report;
}

/**
 * The policy that plays one label: its trajectory replayed, or one turn submitting its answer
 * through the environment's own submit tool, so the reward is the one `rlenv run` gives.
 */
export function labelPolicy(label: CalibrationLabel, task: LoadedTask, env: Environment, opts: SubmitOptions): Policy {
  if (label.trajectory) return new ReplayPolicy(label.trajectory);
  const tool = submitToolOf(env);
  const args = submitArguments(tool, reportOf(label, task, env, opts));
  return new PlannedPolicy("calibrate", [{ content: null, calls: [{ name: tool, arguments: JSON.stringify(args) }] }]);
}

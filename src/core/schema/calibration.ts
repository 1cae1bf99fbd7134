import * as z from "zod/mini";
import "./zod-mini";

/**
 * `rlenv calibrate`'s report (calibration.json): how often the reward agrees with people.
 * The CLI writes it, the run dashboard reads it back (parsed with this schema on both sides; written with
 * zod/mini, see zod-mini.ts, so the dashboard's webview bundle carries no classic zod).
 */

const count = () => z.number().check(z.int(), z.nonnegative());

/** A proportion k/n with its 95 % Wilson interval; rate null when n is 0. */
export const Rate = z.object({
  k: count(),
  n: count(),
  rate: z.nullable(z.number()),
  low: z.nullable(z.number()),
  high: z.nullable(z.number()),
});
export type Rate = z.infer<typeof Rate>;

/**
 * The reward against the human verdicts: `accept` is the label's "right" (or a score at or above
 * the bar), a verifier accepts at full marks (or the threshold given). Rows are people, columns the verifier.
 */
export const Agreement = z.object({
  n: count(),
  /** People and verifier accept. */
  both_accept: count(),
  /** The verifier accepts what people reject. */
  false_accept: count(),
  /** The verifier rejects what people accept. */
  false_reject: count(),
  both_reject: count(),
  /** false accepts / answers people reject. */
  false_accept_rate: Rate,
  /** false rejects / answers people accept. */
  false_reject_rate: Rate,
  /** Share of answers both agree on. */
  agreement: z.nullable(z.number()),
  /** Cohen's κ: agreement beyond chance; null when chance alone explains every verdict (one class only). */
  kappa: z.nullable(z.number()),
});
export type Agreement = z.infer<typeof Agreement>;

export const Verdict = z.enum(["accept", "reject"]);
export type Verdict = z.infer<typeof Verdict>;

export const Disagreement = z.object({
  /** The label's line in the labels file. */
  line: z.number().check(z.int(), z.positive()),
  task: z.string(),
  group: z.optional(z.string()),
  kind: z.enum(["false-accept", "false-reject"]),
  /** Where it disagrees: "reward", a component's name, or "component.field". */
  scope: z.string(),
  human: Verdict,
  verifier: Verdict,
  reward: z.nullable(z.number()),
  /** The verifier's own reason (the component's or the field's). */
  reason: z.string(),
  /** The text graded, cut to a few hundred characters. */
  answer: z.string(),
  /** The rollout's trajectory, relative to the run folder. */
  rollout: z.string(),
});
export type Disagreement = z.infer<typeof Disagreement>;

export const NotGraded = z.object({
  line: z.number().check(z.int(), z.positive()),
  task: z.string(),
  reason: z.string(),
  rollout: z.optional(z.string()),
});
export type NotGraded = z.infer<typeof NotGraded>;

export const LabelProblem = z.object({
  file: z.string(),
  line: z.number().check(z.int(), z.positive()),
  field: z.string(),
  message: z.string(),
});
export type LabelProblem = z.infer<typeof LabelProblem>;

export const CalibrationReport = z.object({
  created: z.string(),
  env: z.object({ name: z.string(), hash: z.string() }),
  labels: z.string(),
  run_dir: z.string(),
  /** What was submitted: each label's whole reply, or only its final sentence. */
  answers: z.enum(["whole", "final-sentence"]),
  accept: z.object({
    labels: z.array(z.string()),
    score_at: z.number(),
    reward_at: z.number(),
  }),
  counts: z.object({
    lines: count(),
    graded: count(),
    not_graded: count(),
    bad: count(),
  }),
  overall: Agreement,
  components: z.array(z.extend(Agreement, { name: z.string(), type: z.string() })),
  fields: z.array(z.extend(Agreement, { component: z.string(), field: z.string() })),
  groups: z.array(z.extend(Agreement, { group: z.string() })),
  disagreements: z.array(Disagreement),
  not_graded: z.array(NotGraded),
  problems: z.array(LabelProblem),
  /** The bars given (--max-false-accept, --max-false-reject) and which were missed. */
  bars: z.object({
    max_false_accept: z.optional(z.number()),
    max_false_reject: z.optional(z.number()),
    missed: z.array(z.string()),
  }),
});
export type CalibrationReport = z.infer<typeof CalibrationReport>;

/** The file a calibration leaves in its run folder, where the dashboard looks for it. */
export const CALIBRATION_FILE = "calibration.json";

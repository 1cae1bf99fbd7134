import { z } from "zod";

/**
 * `audit.json`, what `rlenv audit` writes: per environment and task, whether the oracle's
 * reward is stable (flakiness, backend parity), how many plausible wrong solutions the
 * verifier rejects (mutation score, survivors with their diff), and which adversarial
 * probes it let through (findings with their trajectory).
 */

/** One oracle rollout's outcome: a reward, or null when it was not judged (infra error, unscored). */
const RewardSeen = z.number().nullable();

export const FlakinessResult = z.strictObject({
  backend: z.enum(["docker", "process"]),
  rewards: z.array(RewardSeen).describe("The oracle's reward in each fresh sandbox; null: not judged (an infra error)"),
  flaky: z.boolean().describe("The judged rewards were not all identical"),
  not_judged: z.number().int().nonnegative(),
  trajectories: z.array(z.string()),
  reruns: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "How many of the rewards (the last ones) are reruns of the verifier's commands on the oracle's files in one sandbox (the screen), with no trajectory of their own; the others are rollouts, one trajectory each",
    ),
});

export const ParityResult = z.strictObject({
  backends: z.tuple([z.enum(["docker", "process"]), z.enum(["docker", "process"])]),
  agree: z.boolean().nullable().describe("null: one side was not judged"),
  first_difference: z
    .strictObject({ component: z.string(), a: z.number().nullable(), b: z.number().nullable() })
    .optional()
    .describe("The first reward component whose score differs between the two backends"),
});

export const Survivor = z.strictObject({
  id: z.string(),
  operator: z.string(),
  description: z.string(),
  diff: z.string().describe("What the mutant changed (unified diff, or the answer / scene change)"),
  reward: z.number().nullable(),
  trajectory: z.string(),
});

export const Misjudged = z.strictObject({
  id: z.string(),
  description: z.string(),
  answer: z.unknown(),
  reward: z.number().nullable(),
  expected: z.string().describe("What the verifier should have given"),
  trajectory: z.string(),
});

export const MutationResult = z.strictObject({
  kind: z.enum(["code", "answer", "scene"]),
  reference_reward: z.number().nullable().describe("The oracle's reward, the bar a wrong solution must fall below"),
  mutants: z.number().int().nonnegative(),
  killed: z.number().int().nonnegative(),
  survived: z.number().int().nonnegative(),
  equivalent: z.number().int().nonnegative(),
  not_judged: z.number().int().nonnegative(),
  score: z.number().nullable().describe("killed / (mutants − equivalent − not judged); null when nothing could be judged"),
  screened_killed: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      "Of the killed, how many the in-sandbox screen rejected without a rollout of their own: the task's real verifiers scored the screen's recorded run of their commands below the reference",
    ),
  survivors: z.array(Survivor),
  /** Correct reformattings of the gold answer the verifier rejected (document tasks). */
  rejected_correct: z.array(Misjudged).default([]),
  note: z.string().optional(),
});

export const ProbeOutcome = z.strictObject({
  probe: z.string(),
  backend: z.enum(["docker", "process"]),
  status: z.enum(["rejected", "finding", "not-judged"]).describe("rejected: scored 0; finding: scored > 0; not-judged: an infra error"),
  reward: z.number().nullable(),
  reason: z.string().optional(),
  trajectory: z.string(),
  screened: z
    .literal(true)
    .optional()
    .describe(
      "Rejected by the screen: its turns and the verifier's commands ran in a reset workbench sandbox and the real verifiers scored 0 on the recorded runs; no rollout, so trajectory is empty",
    ),
});

export const TaskAudit = z.strictObject({
  id: z.string(),
  ok: z.boolean(),
  problems: z.array(z.string()).describe("Why the task fails its audit, one line each"),
  not_judged: z
    .string()
    .optional()
    .describe("Why the task could not be audited here (a judge-graded field with no judge endpoint): neither passed nor failed"),
  flakiness: z.array(FlakinessResult),
  parity: ParityResult.nullable(),
  mutation: MutationResult.nullable(),
  probes: z.array(ProbeOutcome),
});
export type TaskAudit = z.infer<typeof TaskAudit>;

export const EnvironmentAudit = z.strictObject({
  name: z.string(),
  dir: z.string(),
  hash: z
    .string()
    .optional()
    .describe(
      "The environment's content hash when it was audited, as its runs record it (run.json env.hash): a run's dashboard shows an audit of the same name only when the hashes agree. Absent in reports written before it was kept",
    ),
  domain: z.string(),
  ok: z.boolean(),
  min_mutation_score: z.number(),
  judge: z
    .object({ sandbox: z.enum(["fresh", "agent"]), hack_signals: z.enum(["flag", "zero", "off"]) })
    .optional()
    .describe(
      "Where its code-running verifiers judge (a fresh sandbox holding only the submission, or the agent's) and what a hack signal does (docs/security.md)",
    ),
  tasks: z.array(TaskAudit),
  /** Why parts of the audit did not run for this environment (no second backend, no sandbox for mutation...). */
  notes: z.array(z.string()).default([]),
  /** Where the audit's time went: each phase's wall seconds and rollouts (what the bench reports). */
  phases: z
    .array(z.strictObject({ phase: z.string(), seconds: z.number().nonnegative(), rollouts: z.number().int().nonnegative() }))
    .optional(),
});
export type EnvironmentAudit = z.infer<typeof EnvironmentAudit>;

export const AuditReport = z.strictObject({
  version: z.literal(1),
  created: z.string(),
  ok: z.boolean(),
  options: z.strictObject({
    runs: z.number().int().positive(),
    mutants: z.number().int().nonnegative(),
    seed: z.number().int(),
    backends: z.array(z.enum(["docker", "process"])),
    probes: z.array(z.string()),
  }),
  runs_dir: z.string().describe("Where every audit rollout's trajectory is kept"),
  environments: z.array(EnvironmentAudit),
});
export type AuditReport = z.infer<typeof AuditReport>;
export type FlakinessResult = z.infer<typeof FlakinessResult>;
export type ParityResult = z.infer<typeof ParityResult>;
export type MutationResult = z.infer<typeof MutationResult>;
export type Survivor = z.infer<typeof Survivor>;
export type Misjudged = z.infer<typeof Misjudged>;
export type ProbeOutcome = z.infer<typeof ProbeOutcome>;

/**
 * A hack probe: a plain policy file (YAML or JSON) of tool calls an adversarial agent makes,
 * then a submit. String arguments may name task-derived values as {{var}} (see
 * src/core/audit/probe-vars.ts); a probe whose variables a task lacks does not apply to it.
 */
export const ProbeFile = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-'"),
  description: z.string().min(1),
  domains: z
    .array(z.enum(["code", "scene3d", "document", "custom"]))
    .min(1)
    .describe("The domains the probe applies to"),
  sample: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Run on this many tasks of an environment only (a property of the verifier, not of the task)"),
  turns: z
    .array(
      z.union([
        z.array(z.strictObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) })),
        z
          .strictObject({ from_solution: z.strictObject({ set: z.record(z.string(), z.unknown()) }) })
          .describe("The reference solution's tool calls, with these arguments replaced"),
      ]),
    )
    .default([]),
  answer: z
    .union([z.strictObject({ value: z.unknown() }), z.strictObject({ each_field: z.string() })])
    .optional()
    .describe("What to submit: a value, or one string put in every field of the gold answer"),
});
export type ProbeFile = z.infer<typeof ProbeFile>;

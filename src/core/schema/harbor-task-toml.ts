import { z } from "zod";
import {
  AgentTable,
  Artifact,
  doc,
  EnvironmentTable,
  HealthcheckTable,
  SolutionTable,
  StepAgentTable,
  StepVerifierTable,
  VerifierTable,
} from "./harbor-task-tables";
import { linuxOnlyRule, withRules } from "./harbor-task-rules";

/**
 * Harbor's task.toml as one schema (1.0 to 1.3): what the loader checks a task against
 * (src/core/harbor/task-config.ts), what the editor completes and explains
 * (src/core/harbor/task-toml-schema.ts), and schemas/harbor-task.schema.json for TOML editors
 * (Even Better TOML / taplo). Tables are strict, so a field Harbor does not have is reported
 * (a warning: Harbor ignores it); metadata is free-form. The rules tying fields together
 * (schema/harbor-task-rules.ts) are refinements of the tables, placed at the field they are about.
 */

const ORG_NAME = /^[a-zA-Z0-9_-][a-zA-Z0-9._-]*\/[a-zA-Z0-9_-][a-zA-Z0-9._-]*$/;

const TaskTable = z.strictObject({
  name: doc(
    z.string().refine((s) => ORG_NAME.test(s) && !s.includes(".."), 'must be "org/name" (letters, digits, ".", "_", "-"; no "..")'),
    'The task\'s name, "org/name".',
    { examples: ["org/name"] },
  ),
  description: doc(z.string(), "One line about the task.").optional(),
  authors: doc(
    z.array(z.strictObject({ name: doc(z.string(), "The author's name."), email: doc(z.string(), "The author's email.").optional() })),
    'Authors, each a [[task.authors]] with name = "…" and email = "…".',
  ).optional(),
  keywords: doc(z.array(z.string()), "Search keywords.").optional(),
});

const StepName = z
  .string({
    error: (iss) => (iss.input === undefined ? "is required: the folder steps/<name>/ holds the step's instruction.md" : undefined),
  })
  .refine((s) => s.trim() !== "", "a step name must not be empty: the folder steps/<name>/ holds the step's instruction.md")
  .refine((s) => !/[/\\\0]/.test(s) && s !== "." && s !== "..", "a step name is one folder name under steps/ (no / or \\, not . or ..)");

const MinReward = z.union([z.number(), z.record(z.string(), z.number())], {
  error: (iss) => `must be a number or a table of reward key = number, got ${JSON.stringify(iss.input)}`,
});

export const HarborStep = z.strictObject({
  name: doc(StepName, "The step's folder under steps/: its instruction.md, tests/, solution/ and workdir/.", { examples: ["step-1"] }),
  agent: doc(StepAgentTable, "The step's agent: its timeout_sec (and user).").optional(),
  verifier: doc(StepVerifierTable, "The step's verifier: its timeout_sec and env, over the task's.").optional(),
  min_reward: doc(
    MinReward,
    'The gate: the rollout stops when the step\'s "reward" is below it; a table { key = n } gates each key it names.',
    { examples: [1] },
  ).optional(),
  healthcheck: doc(HealthcheckTable, "A check run after the step's setup, before its agent.", {
    unsupported: "the step's health check is not run before its agent starts",
  }).optional(),
  artifacts: doc(z.array(Artifact), "Paths copied out after the step's verifier.", {
    unsupported: "the step's artifacts are not copied out of the sandbox",
  }).optional(),
});

export const HarborTaskToml = z.strictObject({
  version: doc(z.string(), 'Schema version of TB 2.0 tasks ("1.0"); renamed schema_version later.', {
    examples: ["1.0"],
  }).optional(),
  schema_version: doc(z.string(), 'Schema version ("1.1" to "1.3" are read here).', { examples: ["1.3"] }).optional(),
  source: doc(z.string(), "Where the task comes from (a data set or URL).").optional(),
  artifacts: doc(z.array(Artifact), 'Paths copied out of the sandbox after the run ("/app/out" or { source, destination }).', {
    unsupported: "artifacts are not copied out of the sandbox",
  }).optional(),
  multi_step_reward_strategy: doc(
    z.enum(["mean", "final"]).default("mean"),
    "How a multi-step task's reward is formed: the per-key mean over the scored steps, or the last step's.",
  ),
  metadata: doc(
    z.record(z.string(), z.unknown()).default({}),
    "Free-form: author_name, author_email, difficulty, category, tags, time estimates.",
  ),
  task: doc(TaskTable, "Name, description, authors and keywords (schema 1.3).").optional(),
  verifier: doc(VerifierTable, "How tests/test.sh runs: timeout, env, user, network.").prefault({}),
  agent: doc(AgentTable, "The agent's timeout, user and network.").prefault({}),
  solution: doc(SolutionTable, "The oracle's environment.").prefault({}),
  environment: doc(
    withRules(EnvironmentTable, [linuxOnlyRule]),
    "The sandbox: build timeout, image, cpus, memory, storage, network, workdir, env.",
  ).prefault({}),
  steps: doc(
    z.array(HarborStep),
    "[[steps]]: a multi-step task, each step with steps/<name>/instruction.md, its own tests, solution and gate.",
  ).optional(),
});
export type HarborTaskToml = z.infer<typeof HarborTaskToml>;

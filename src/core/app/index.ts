/**
 * The application layer: each use of the product as one function over plain options and an
 * AbortSignal, returning typed results. The CLI commands, the editor's commands, Test Explorer,
 * the debug adapter and the runner are adapters over these; the rules (verdicts, policy
 * construction, job specs) live here and nowhere else.
 */
export { type AuditEnvironmentOptions, auditEnvironment } from "./audit-environment";
export { type CalibrateEnvironmentOptions, calibrateEnvironment } from "./calibrate-environment";
export { type CreatePolicyOptions, createPolicy, policyFactoryWith } from "./create-policy";
export { type ListRunsOptions, listRuns, type RunListing, type RolloutListing } from "./list-runs";
export { type RunRolloutsOptions, runRollouts } from "./run-rollouts";
export { staticProblems } from "./static-problems";
export { type JobRequest, jobSpec, type SubmitJobOptions, submitJob } from "./submit-job";
export { type EnvironmentValidation, type ValidateEnvironmentOptions, validateEnvironment } from "./validate-environment";
export { type JudgedRollout, judgeTask, meanReward, type TaskVerdict, verdictLine } from "./verdict";
export { checkPolicyFiles, RunRequest, type RunRequestInput, readRunRequest } from "./run-request";
export { type OpenedRun, type OpenRunResult, openRun, type StartRunOptions, startRun } from "./start-run";

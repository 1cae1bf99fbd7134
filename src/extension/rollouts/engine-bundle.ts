/**
 * The rollout engine as the extension loads it: its own bundle (dist/extension-engine.js),
 * required on the first Validate or Rollout so activation never compiles it.
 */
export { runEnvironment } from "../../core/rollout/run-environment";
// The rollout debugger: its controller, adapter and what a session builds.
export { RolloutDebugger } from "../../core/debug/controller";
export { RolloutDebugSession } from "../debug/adapter";
export { createPolicy } from "../../core/app/create-policy";
// The sandbox backends: one choice of backend (auto) and one image provisioning, as `rlenv run` makes them.
export { createSandboxProvider } from "../../core/sandbox/create-provider";
export { providerForEnvironment } from "../../core/sandbox/select";
// The static checks past the loader (domain task checks, authoring checks), for the editor's diagnostics (see environments/index.ts).
export { staticProblems } from "../../core/app/static-problems";
// The reference's text for a manifest key, for the editor's hovers (see authoring/reference-hover.ts).
export { referenceHover } from "../../core/docs/reference-hover";
// The application layer the editor's commands and Test Explorer call.
export { validateEnvironment } from "../../core/app/validate-environment";
export { runRollouts } from "../../core/app/run-rollouts";
// The reward audit (the Test Explorer profile Audit), the same entry as `rlenv audit`.
export { auditEnvironment } from "../../core/app/audit-environment";
// Calibration of the reward against human labels, the same entry as `rlenv calibrate`.
export { calibrateEnvironment } from "../../core/app/calibrate-environment";
// The text of a rollout's tokens for the viewer's token toggle (the tokenizer code is heavy: it stays out of activation).
export { tokenPiecesForRollout } from "../../core/view/server/token-text";

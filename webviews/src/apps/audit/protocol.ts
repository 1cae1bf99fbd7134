/**
 * The audit report app's messages. The schemas live in core (src/core/view/protocol) because
 * the host parses them too; this file is the app's one import point for them.
 */
export * from "../../../../src/core/view/protocol/audit";
export type {
  EnvironmentAudit,
  FlakinessResult,
  Misjudged,
  ParityResult,
  ProbeOutcome,
  Survivor,
  TaskAudit,
} from "../../../../src/core/schema/audit";
export type { InitContext } from "../../../../src/core/view/protocol/envelope";

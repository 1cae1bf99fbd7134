export { aggregate, DEFAULT_VERIFIER_TIMEOUT_MS, runVerifier, type Score, scoreRollout } from "./score";
export { findVerifier, registeredVerifierTypes, VERIFIERS, verifierEntry } from "./verifier-table";
export {
  type Comparator,
  type ComparatorContext,
  type ComparatorResult,
  findComparator,
  registeredComparators,
} from "./comparators/registry";
export { parseJUnit, parsePytestSummary, parseTap, type TestCounts } from "./test-reports";
export { judgeRubric, parseJudgeReply, type JudgeResult } from "./judge-client";
export { expectedValue, getPath } from "./answer-path";
export { normalizeText, parseNumber, withinTolerance } from "./normalize";

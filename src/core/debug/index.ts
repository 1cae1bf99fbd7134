export {
  RolloutDebugger,
  type DebugState,
  type DebugTurn,
  type PauseInfo,
  type PausePoint,
  type PauseReason,
  type RolloutDebuggerOptions,
} from "./controller";
export { parseBreakpoint, taskBreakpoint, unknownComponent, type Breakpoint, type BreakpointSpec, type ParseResult } from "./breakpoints";
export { forkState, type ForkState } from "./fork-state";
export { evaluateExpression, type ExpressionResult } from "./expression";

export * from "./load-environment";
export * from "./load-tasks";
export * from "./problem";
export * from "./safe-path";
export * from "./hash";
export { parseJsonWithPositions, LineMap } from "./json-positions";

export * from "./load-environment";
export * from "./load-tasks";
export * from "../model/problem";
export * from "./safe-path";
export * from "../util/hash";
export { parseJsonWithPositions, LineMap } from "./json-positions";
export type { Environment, LoadedTask, LoadResult } from "../model/environment";

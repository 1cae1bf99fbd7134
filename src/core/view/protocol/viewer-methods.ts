import { RolloutMethods } from "./rollouts";
import { TokenMethods } from "./tokens";
import { TrajectoryMethods } from "./trajectory";

/**
 * The methods the trajectory viewer asks for, all written with zod/mini: the viewer's bundle
 * and the view server's first screen parse with these without loading the dashboard's (the run
 * record, summary and reports) and the audit report's (classic zod).
 */
export const VIEWER_METHODS = { ...TrajectoryMethods, ...TokenMethods, ...RolloutMethods } as const;
export type ViewerMethodName = keyof typeof VIEWER_METHODS;

export function isViewerMethod(name: string): name is ViewerMethodName {
  return Object.hasOwn(VIEWER_METHODS, name);
}

import { RolloutMethods } from "./rollouts";
import { TokenMethods } from "./tokens";
import { TrajectoryMethods } from "./trajectory";

/**
 * The methods the trajectory viewer asks for, all written with zod/mini: the viewer's bundle
 * and the view server's first screen parse with these without loading the dashboard's and the
 * audit report's schemas (built on the run record's and the audit's, in classic zod).
 */
export const VIEWER_METHODS = { ...TrajectoryMethods, ...TokenMethods, ...RolloutMethods } as const;
export type ViewerMethodName = keyof typeof VIEWER_METHODS;

export function isViewerMethod(name: string): name is ViewerMethodName {
  return Object.hasOwn(VIEWER_METHODS, name);
}

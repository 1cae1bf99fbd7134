import type { z } from "zod";
import { AuditMethods } from "./audit";
import { DashboardMethods } from "./dashboard";
import { RolloutMethods } from "./rollouts";
import { TokenMethods } from "./tokens";
import { TrajectoryMethods } from "./trajectory";

/** Every request an app may make, with its params and result schemas (both sides parse). */
export const METHODS = { ...TrajectoryMethods, ...DashboardMethods, ...RolloutMethods, ...TokenMethods, ...AuditMethods } as const;
export type MethodName = keyof typeof METHODS;
export type Params<M extends MethodName> = z.input<(typeof METHODS)[M]["params"]>;
export type Result<M extends MethodName> = z.output<(typeof METHODS)[M]["result"]>;

export function isMethod(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}

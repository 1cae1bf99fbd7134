import type { Domain } from "../schema/common";

/**
 * The domains whose plugin has `checkTasks`, known without loading any plugin: the
 * extension runs those checks through its engine bundle (several MB, three.js among them)
 * and loads it only for an environment of one of these. A unit test keeps this set equal
 * to the plugins' own.
 */
export const DOMAINS_WITH_TASK_CHECKS: ReadonlySet<Domain> = new Set<Domain>(["scene3d"]);

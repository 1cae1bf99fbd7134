import path from "node:path";
import type { Environment } from "../model/environment";
import type { Problem } from "../model/problem";
import type { Domain } from "../schema/common";
import type { DomainPlugin } from "../model/domain";

/**
 * Domain plugins by name. Each domain folder exports its plugin; add it here (a domain of
 * schema/common.ts without an entry is a compile error). Loaded lazily so the CLI and the
 * extension only load the domains they use.
 */
const loaders: Record<Domain, () => Promise<DomainPlugin>> = {
  code: () => import("./code").then((m) => m.codeDomain),
  custom: () => import("./code").then((m) => m.customDomain),
  scene3d: () => import("./scene3d").then((m) => m.scene3dDomain),
  document: () => import("./document").then((m) => m.documentDomain),
};

export async function loadDomain(domain: Domain): Promise<DomainPlugin> {
  const plugin = await findDomain(domain);
  if (!plugin) throw new Error(`domain '${domain}' has no plugin registered in core/domains/registry.ts`);
  return plugin;
}

/** The domain's plugin, or null when none is registered (the engine then offers custom tools and `submit` only). */
export async function findDomain(domain: Domain): Promise<DomainPlugin | null> {
  const load = loaders[domain];
  return load ? load() : null;
}

/**
 * The domain's own static problems in the tasks (`checkTasks`), for `rlenv validate` and the
 * editor's diagnostics. A check that throws is itself a problem, on the manifest, so one
 * bad plugin cannot hide the loader's problems.
 */
export async function domainTaskProblems(env: Environment): Promise<Problem[]> {
  try {
    const plugin = await findDomain(env.manifest.domain);
    return (await plugin?.checkTasks?.(env)) ?? [];
  } catch (e) {
    return [
      {
        severity: "error",
        file: path.join(env.dir, "environment.yaml"),
        line: 1,
        column: 1,
        endLine: 1,
        endColumn: 1,
        path: "domain",
        message: `the ${env.manifest.domain} domain's task check failed: ${(e as Error).message}`,
      },
    ];
  }
}

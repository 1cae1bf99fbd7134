import type { DomainPlugin, ToolDefinition } from "../model/domain";
import type { Environment } from "../model/environment";
import type { ToolSpec } from "../policy/types";
import { customToolDefinition } from "./custom-tool";
import { submitTool } from "./submit-tool";

export interface Toolset {
  byName: Map<string, ToolDefinition>;
  /** What the policy is shown, in manifest order. */
  specs: ToolSpec[];
}

const SUBMIT_NAMES = ["submit", "submit_report"];

/**
 * The tools of one environment: the built-ins the manifest lists (all of the domain's
 * when it lists none), then its custom tools, then `submit` unless the domain brings its
 * own submit tool. A listed built-in that nothing implements is a set-up error.
 */
export function buildToolset(env: Environment, domain: DomainPlugin | null): Toolset {
  const domainTools = domain?.tools(env) ?? [];
  const byDomainName = new Map(domainTools.map((t) => [t.name, t]));
  const chosen: ToolDefinition[] = [];
  if (env.manifest.tools.length === 0) chosen.push(...domainTools);
  for (const name of env.builtinTools) {
    const t = byDomainName.get(name) ?? (name === "submit" ? submitTool : undefined);
    if (!t) {
      throw new Error(
        `${env.manifestPath}: tool '${name}' is listed but the ${env.manifest.domain} domain ${domain ? `plugin '${domain.name}' does not provide it` : "has no plugin registered"}`,
      );
    }
    chosen.push(t);
  }
  for (const c of env.customTools) chosen.push(customToolDefinition(c));
  if (!chosen.some((t) => SUBMIT_NAMES.includes(t.name))) chosen.push(byDomainName.get("submit") ?? submitTool);
  const byName = new Map<string, ToolDefinition>();
  for (const t of chosen) byName.set(t.name, t);
  return { byName, specs: [...byName.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })) };
}

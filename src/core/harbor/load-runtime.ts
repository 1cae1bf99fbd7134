/** What a Harbor task's containers get at run time beyond their image: the network, and environment variables. */
import type { HarborTaskConfig } from "../model/harbor";
import type { Problem } from "../model/problem";
import { fileProblem } from "./file-problem";
import { tomlSpan } from "./toml-position";

/** A task.toml that asks for a network is warned: sandboxes have none. */
export function warnNetwork(configPath: string, config: HarborTaskConfig, configText: string, problems: Problem[]): void {
  if (config.networkMode !== "no-network" && /network_mode/.test(configText))
    problems.push(
      fileProblem(
        configPath,
        "sandboxes have no network: a task that needs it at run time fails (the verifier's uv/pytest fetch is shimmed offline)",
        "warning",
      ),
    );
}

/** `[environment].env` resolved against the host's environment; when it sets anything, a warning says who gets it. */
export function containerEnvOf(
  configPath: string,
  config: HarborTaskConfig,
  configText: string,
  problems: Problem[],
): Record<string, string> {
  // [environment].env is the container's environment in Harbor (${VAR} taken from the host): here the oracle's and the verifier's.
  const containerEnv = Object.fromEntries(
    Object.entries(config.env).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, name: string) => process.env[name] ?? "")]),
  );
  if (Object.keys(containerEnv).length > 0)
    problems.push({
      file: configPath,
      ...tomlSpan(configText, ["environment"], "env"),
      path: "environment.env",
      message: "set for the oracle's solve.sh and the verifier's test.sh; the agent's own commands do not get it",
      severity: "warning",
    });
  return containerEnv;
}

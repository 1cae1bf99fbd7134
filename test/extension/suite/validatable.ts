import type { ExtensionApi } from "../../../src/extension/start";
import { examplesDir } from "./helpers";

/**
 * An example task whose Validate run works on this machine: a code-stdio task (plain
 * python3 in the process sandbox, no Docker or pytest needed), else the first task of any
 * example. RLENV_EXT_VALIDATE=env/task overrides.
 */
export function pickValidatable(
  api: ExtensionApi,
): { entry: ReturnType<ExtensionApi["ctx"]["environments"]["list"]>[number]; taskId: string } | undefined {
  const [envName, taskId] = (process.env.RLENV_EXT_VALIDATE ?? "").split("/");
  const examples = api.ctx.environments
    .list()
    .filter((e) => e.dir.startsWith(examplesDir()) && e.result.env && e.result.problems.length === 0);
  const entry = (envName && examples.find((e) => e.label === envName)) || examples.find((e) => e.label === "code-stdio") || examples[0];
  const id = taskId || entry?.result.env?.tasks[0]?.id;
  return entry && id ? { entry, taskId: id } : undefined;
}

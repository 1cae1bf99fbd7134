import { checksNothingAsScript, isPytestStyle } from "../domains/code/python-tests";
import { fileText } from "../model/file-content";
import type { Environment } from "../model/environment";
import { formatPath, type Problem } from "../model/problem";
import { taskLocator } from "./locate";

const hasTestCommand = (meta: Record<string, unknown> | undefined) =>
  typeof meta?.test_command === "string" && meta.test_command.trim() !== "";

/**
 * Visible tests run_tests would run as plain Python scripts that check nothing: a file with no
 * test functions (so not run under pytest) whose top level only defines things exits 0 whatever
 * the solution does, and the agent is told its code passes. Not where `metadata.test_command`
 * says how to run them, nor where the reward's own format (pytest, stdio) decides.
 */
export function visibleTestProblems(env: Environment): Problem[] {
  if (!["code", "custom"].includes(env.manifest.domain) || hasTestCommand(env.manifest.metadata)) return [];
  const verifier = env.manifest.reward.find((v) => v.type === "tests");
  if (verifier?.type === "tests" && (verifier.format === "pytest" || verifier.format === "stdio")) return [];
  const problems: Problem[] = [];
  for (const task of env.tasks) {
    if (hasTestCommand(task.metadata)) continue;
    for (const [name, content] of Object.entries(task.visible_tests ?? {})) {
      const source = name.endsWith(".py") ? fileText(content) : null;
      if (source === null || isPytestStyle(source) || !checksNothingAsScript(source)) continue;
      const at: PropertyKey[] = ["visible_tests", name];
      problems.push({
        file: task.source.file,
        ...taskLocator(task)(at, true),
        path: formatPath(at, `tasks[${task.source.index}]`),
        message: `runs as a plain script (python3 ${name}) and its top level only defines things, so run_tests exits 0 whatever the solution does: name its tests def test_… (run under pytest), call them at the top level, or set metadata.test_command`,
        severity: "warning",
      });
    }
  }
  return problems;
}

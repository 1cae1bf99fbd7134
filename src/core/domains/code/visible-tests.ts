import { fileText, sandboxFiles } from "../../model/file-content";
import type { Environment } from "../../model/environment";
import type { LoadedTask } from "../../model/environment";
import { StdioCase } from "../../schema/verifier";
import { isPytestStyle } from "./python-tests";
import { shq } from "../../util/shell-quote";

/** How run_tests runs a task's visible tests. */
export type VisibleTestPlan =
  | { kind: "command"; command: string; files: Record<string, string | Buffer> }
  | { kind: "stdio"; program: string; cases: StdioCase[]; files: Record<string, string | Buffer> }
  | { kind: "none"; message: string };

const DEFAULT_PROGRAM = "python3 solution.py";

function metadataCommand(meta: Record<string, unknown> | undefined): string | undefined {
  const v = meta?.test_command;
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/**
 * Decide how to run the visible tests, in this order: a `test_command` in the task's or
 * the manifest's metadata; for a stdio verifier, the cases in the visible `*.json` files
 * run through its program; for a pytest verifier, pytest on the visible test files;
 * otherwise, whatever the report format, pytest on the pytest-style `.py` files (test
 * functions or Test classes), python3 on the other `.py` files and bash on each `.sh`.
 */
export function planVisibleTests(env: Environment, task: LoadedTask): VisibleTestPlan {
  const given = task.visible_tests ?? {};
  const names = Object.keys(given).sort();
  const files = sandboxFiles(given);
  const explicit = metadataCommand(task.metadata) ?? metadataCommand(env.manifest.metadata);
  if (explicit) return { kind: "command", command: explicit, files };
  if (names.length === 0) return { kind: "none", message: "this task has no visible tests; read the task and check your work with bash" };
  const verifier = env.manifest.reward.find((v) => v.type === "tests");
  if (verifier?.type === "tests" && verifier.format === "stdio") {
    const cases: StdioCase[] = [];
    for (const n of names.filter((x) => x.endsWith(".json"))) {
      const parsed = StdioCase.array().safeParse(JSON.parse(fileText(given[n] ?? "[]") ?? "[]"));
      if (parsed.success) cases.push(...parsed.data);
    }
    if (cases.length > 0) return { kind: "stdio", program: verifier.program ?? DEFAULT_PROGRAM, cases, files };
  }
  if (verifier?.type === "tests" && verifier.format === "pytest") {
    return {
      kind: "command",
      command: `python3 -m pytest -q -p no:cacheprovider ${names
        .filter((n) => n.endsWith(".py"))
        .map(shq)
        .join(" ")}`,
      files,
    };
  }
  const runnable = names.filter((n) => n.endsWith(".py") || n.endsWith(".sh"));
  if (runnable.length === 0) return { kind: "none", message: `no runnable visible tests (files: ${names.join(", ")})` };
  // Test functions run only under a runner: such a file run as a script exits 0 whatever the code does.
  const pytestFiles = runnable.filter((n) => n.endsWith(".py") && isPytestStyle(fileText(given[n] ?? "") ?? ""));
  const steps = [
    ...(pytestFiles.length > 0
      ? [
          `echo ${shq(`== pytest ${pytestFiles.join(" ")}`)}; python3 -m pytest -q -p no:cacheprovider ${pytestFiles.map(shq).join(" ")} || rc=1`,
        ]
      : []),
    ...runnable
      .filter((n) => !pytestFiles.includes(n))
      .map((n) => `echo ${shq(`== ${n}`)}; ${n.endsWith(".py") ? "python3" : "bash"} ${shq(n)} || rc=1`),
  ];
  return { kind: "command", command: `rc=0; ${steps.join("; ")}; exit $rc`, files };
}

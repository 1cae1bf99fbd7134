import type { DomainPlugin, ToolDefinition, Verifier } from "../../model/domain";
import { knownFiles, restoreKnownFiles } from "./file-changes";
import { codeTestsVerifier } from "./tests-verifier";
import { bashTool } from "./tools/bash";
import { editFileTool } from "./tools/edit-file";
import { listFilesTool } from "./tools/list-files";
import { readFileTool } from "./tools/read-file";
import { runTestsTool } from "./tools/run-tests";
import { customSubmitTool, submitTool } from "./tools/submit";
import { writeFileTool } from "./tools/write-file";

/** Every code tool, in the order shown to the policy. */
export const CODE_TOOLS: readonly ToolDefinition[] = [
  bashTool,
  readFileTool,
  writeFileTool,
  editFileTool,
  listFilesTool,
  runTestsTool,
  submitTool,
];

/**
 * The code domain: the agent edits files, runs commands and the visible tests in the
 * sandbox, then submits; the `tests` verifier runs the hidden tests afterwards. The
 * engine shows the policy those the manifest's `tools:` lists (all when it lists none).
 * The engine seeds the workdir with the task's files and visible tests, so there is no
 * per-rollout set-up; run_tests writes the visible tests again before each run.
 */
export const codeDomain: DomainPlugin = {
  name: "code",
  verifiers: [codeTestsVerifier as Verifier],
  tools: () => [...CODE_TOOLS],
  forkState: async (ctx) => knownFiles(ctx),
  resumeState: async (ctx, saved) => restoreKnownFiles(ctx, saved),
};

/** The custom domain gets the code tools: a shell and files are what a bespoke environment builds on. */
export const customDomain: DomainPlugin = {
  ...codeDomain,
  name: "custom",
  tools: () => CODE_TOOLS.map((t) => (t.name === "submit" ? customSubmitTool : t)),
};

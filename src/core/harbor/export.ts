import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import type { Environment } from "../model/environment";
import { writeEnvironmentFolder } from "./export-environment";
import { openTaskFolder } from "./export-folder";
import { type ExportDocument, graderSpec } from "./export-grader";
import { writeInstruction } from "./export-instruction";
import { writeSolution } from "./export-solution";
import { writeTests } from "./export-tests";
import { importedToml, writeTaskToml } from "./export-toml";
import { HARBOR_EXTRA } from "./import";

export interface ExportResult {
  /** Harbor task folders written. */
  written: string[];
  /** What could not be carried over, per task: said, never dropped silently. */
  warnings: string[];
}

/**
 * `rlenv export harbor`: each task of an environment becomes a Harbor task folder. A task
 * imported from Harbor (metadata.harbor.task_toml, the oracle command of import) is written
 * back as it was: task.toml field for field, instruction.md, environment/, tests/ and
 * solution/ byte for byte. Any other task gets a task.toml from the manifest's limits and
 * timeouts, a Dockerfile (the environment's own, else Debian with the stock image's packages)
 * that bakes the seed files into the workdir, a solve.sh playing the reference solution, and
 * a test.sh that runs the exec-based verifiers (tests: exit status or stdio cases; script) and
 * writes reward.txt (one) or reward.json (several, each by name, plus their weighted reward).
 * Verifiers graded by rlenv's own code (exact, numeric, fields, judge, scene) cannot run in
 * Harbor's container: each is a warning.
 */
export function exportHarbor(env: Environment, outDir: string, opts: { documents?: readonly ExportDocument[] } = {}): ExportResult {
  const documents = opts.documents ?? [];
  const result: ExportResult = { written: [], warnings: [] };
  const m = env.manifest;
  const imported = importedToml(m);
  for (const task of env.tasks) {
    const dir = path.join(outDir, task.id.replace(/\//g, "-"));
    const out = openTaskFolder(dir, (message: string) => result.warnings.push(`${task.id}: ${message}`));
    result.written.push(dir);
    writeTaskToml(out, m, task, imported);
    const carried = path.join(env.dir, HARBOR_EXTRA);
    if (imported.toml && existsSync(carried)) cpSync(carried, dir, { recursive: true });
    // Harbor has no submit step: an agent whose answer is graded writes it to a file, and reads the task's documents in the workdir.
    const answerGraded = (task.reward ?? m.reward).some((v) => graderSpec(v, task) !== null);
    const named = documents.filter((d) => task.prompt.includes(d.name.split("/").pop() ?? d.name));
    writeInstruction(out, env, task, named, answerGraded);
    writeEnvironmentFolder(out, env, task, named, Boolean(imported.toml));
    writeSolution(out, m, task, answerGraded);
    writeTests(out, m, task, documents, answerGraded);
  }
  return result;
}

import type { Environment, LoadedTask } from "../model/environment";
import { renderTemplate } from "../model/prompt-template";
import { ANSWER_FILE, type TaskFolder } from "./export-folder";
import type { ExportDocument } from "./export-grader";

/**
 * Writes an exported task's instruction.md: the task's prompt (rendered through the
 * environment's prompts when they are not the plain `{{task.prompt}}`), then a note saying where
 * the `named` documents are and, when `answerGraded`, where the agent writes its answer.
 */
export function writeInstruction(
  out: TaskFolder,
  env: Environment,
  task: LoadedTask,
  named: readonly ExportDocument[],
  answerGraded: boolean,
): void {
  const m = env.manifest;
  const plain = env.prompts.system.trim() === "" && env.prompts.user.trim() === "{{task.prompt}}";
  const harborNote = [
    ...(named.length > 0 ? [`The documents are in ${m.sandbox.workdir}/documents/: ${named.map((d) => d.name).join(", ")}.`] : []),
    ...(answerGraded ? [`When you are done, write your answer to ${ANSWER_FILE} as JSON: the object you would submit.`] : []),
  ];
  out.write(
    "instruction.md",
    (plain
      ? task.prompt
      : [env.prompts.system, env.prompts.user]
          .filter((t) => t.trim())
          .map((t) => renderTemplate(t, env, task))
          .join("\n\n")) + (harborNote.length > 0 ? `\n\n${harborNote.join("\n")}\n` : ""),
  );
}

import { type Problem, START_OF_FILE } from "../model/problem";

/** A problem with a whole file (or one of its lines) of a Harbor task folder, not with a field of task.toml. */
export function fileProblem(file: string, message: string, severity: Problem["severity"] = "error", line = 1): Problem {
  return {
    file,
    ...START_OF_FILE,
    line,
    endLine: line,
    path: "",
    message,
    severity,
  };
}

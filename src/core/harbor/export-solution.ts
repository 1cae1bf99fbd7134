import { isExecutable, sandboxFiles } from "../model/file-content";
import type { Environment, LoadedTask } from "../model/environment";
import { shq } from "../util/shell-quote";
import { ANSWER_FILE, sh, type TaskFolder } from "./export-folder";
import { SOLUTION_MARK } from "./native-solution";

/** Writes an exported task's solution/: the imported one as it was, else a solve.sh playing the reference solution. */
export function writeSolution(out: TaskFolder, m: Environment["manifest"], task: LoadedTask, answerGraded: boolean): void {
  const { write, writeMap, warn } = out;
  // solution/: written back as imported, else a solve.sh that plays the reference solution.
  const s = task.solution;
  if (s?.commands?.[0]?.startsWith(SOLUTION_MARK)) {
    writeMap("solution/", s.files);
  } else if (s) {
    const lines = ["set -e", `cd ${shq(m.sandbox.workdir)}`];
    for (const [p, c] of Object.entries(sandboxFiles(s.files))) {
      const b64 = (Buffer.isBuffer(c) ? c : Buffer.from(c)).toString("base64");
      lines.push(`mkdir -p "$(dirname ${shq(p)})"`, `echo ${shq(b64)} | base64 -d > ${shq(p)}`);
      if (s.files && isExecutable(s.files[p] ?? "")) lines.push(`chmod 755 ${shq(p)}`);
    }
    if (s.patch)
      lines.push(
        "cat > /tmp/solution.patch <<'RLENV_PATCH'",
        s.patch.replace(/\n?$/, "\n") + "RLENV_PATCH",
        "git apply /tmp/solution.patch || patch -p1 < /tmp/solution.patch",
      );
    for (const c of s.commands ?? []) lines.push(c);
    if (s.answer !== undefined) {
      lines.push(`mkdir -p /logs/agent && cat > ${ANSWER_FILE} <<'RLENV_ANSWER'`, JSON.stringify(s.answer), "RLENV_ANSWER");
      if (!answerGraded) warn(`the reference answer is written to ${ANSWER_FILE}, but no verifier of this task grades an answer in Harbor`);
    }
    if (s.tool_calls?.length)
      warn(`${s.tool_calls.length} reference tool call(s) are not exported: Harbor's oracle runs a shell script only`);
    write("solution/solve.sh", sh(lines), true);
  } else warn("no reference solution: the task has no solution/solve.sh");
}

import type { Environment, LoadedTask } from "../model/environment";
import { verifierEntry } from "../reward/verifier-table";
import type { VerifierConfig } from "../schema/verifier";
import { shq } from "../util/shell-quote";
import { ANSWER_FILE, sh, type TaskFolder } from "./export-folder";
import { type ExportDocument, graderSpec } from "./export-grader";
import { harborPython } from "./python-assets";

/**
 * The test.sh line that writes reward.json: one key per component, named as rlenv names it (the
 * verifier's name), and with several the weighted `reward` over them. The Python is one constant
 * word; each name goes in as an argument through shq and each score as "$score_i", so neither
 * quotes in a name nor the shell's single quotes (which never expand `$score_i`) lose a key.
 */
function rewardJsonLine(parts: ReadonlyArray<{ name: string; weight: number; i: number }>): string {
  const total = parts.reduce((a, p) => a + p.weight, 0) || 1;
  const args = parts.map((p) => `${shq(p.name)} ${shq(String(p.weight / total))} "$score_${p.i}"`).join(" ");
  return `python3 -c ${shq(harborPython("reward_json.py"))} ${args}`;
}

/** The test.sh lines that score one verifier into the shell variable `score_<i>`; null when it cannot run outside rlenv. */
function verifierLines(
  v: VerifierConfig,
  task: LoadedTask,
  i: number,
  files: Map<string, Buffer>,
  documents: readonly ExportDocument[],
  warn: (m: string) => void,
): string[] | null {
  const name = `score_${i}`;
  const graded = graderSpec(v, task, documents);
  if (graded) {
    for (const u of graded.unsupported)
      warn(`the ${v.type} verifier '${v.name ?? v.type}' field ${u} is graded by rlenv's own code only: it scores 0 in Harbor's grader.py`);
    files.set(`grade_${i}.json`, Buffer.from(JSON.stringify(graded.spec)));
    files.set("grader.py", Buffer.from(harborPython("grader.py")));
    return [
      `${name}=$(python3 /tests/grader.py /tests/grade_${i}.json ${ANSWER_FILE} 2>>/logs/verifier/grader.txt | tail -n 1)`,
      `: "\${${name}:=0}"`,
    ];
  }
  const grader = verifierEntry(v).harbor;
  if (grader.kind !== "exec") return null;
  return grader.lines(v, {
    task,
    index: i,
    addFile: (rel, bytes) => files.set(rel, bytes),
    addProgram: (program) => {
      files.set(program, Buffer.from(harborPython(program)));
      return `/tests/${program}`;
    },
  });
}

/** Writes an exported task's tests/: the imported one as it was, else a test.sh scoring the verifiers that can run in Harbor. */
export function writeTests(
  out: TaskFolder,
  m: Environment["manifest"],
  task: LoadedTask,
  documents: readonly ExportDocument[],
  answerGraded: boolean,
): void {
  const { write, writeMap, warn } = out;
  // tests/: as imported (harbor verifier), else a test.sh running the exec-based verifiers.
  const verifiers = task.reward ?? m.reward;
  if (verifiers.length === 1 && verifiers[0]?.type === "harbor") {
    writeMap("tests/", task.tests?.files);
    return;
  }
  const extra = new Map<string, Buffer>();
  const lines = [
    "mkdir -p /logs/verifier",
    "# Hidden test files go into the workdir, where rlenv's verifiers find them.",
    'cp -a /tests/files/. "$PWD"/ 2>/dev/null || true',
  ];
  const parts: Array<{ name: string; weight: number; i: number }> = [];
  verifiers.forEach((v, i) => {
    const got = verifierLines(v, task, i, extra, documents, warn);
    if (!got) {
      warn(
        `the ${v.type} verifier '${v.name ?? v.type}' is graded by rlenv's own code and cannot run in Harbor's container: left out of test.sh`,
      );
      return;
    }
    lines.push(...got);
    // Two verifiers of one name (two unnamed `tests`) would share a key of reward.json: the later ones get `_2`, `_3`.
    const base = v.name ?? v.type;
    let name = base;
    for (let n = 2; parts.some((p) => p.name === name); n++) name = `${base}_${n}`;
    parts.push({ name, weight: v.weight, i });
  });
  writeMap("tests/files/", task.tests?.files);
  for (const [p, c] of extra) write(`tests/${p}`, c);
  if (parts.length === 0) lines.push("echo 0 > /logs/verifier/reward.txt");
  else if (parts.length === 1 && !answerGraded) lines.push(`echo "$score_${parts[0]?.i}" > /logs/verifier/reward.txt`);
  else lines.push(rewardJsonLine(parts));
  write("tests/test.sh", sh(lines), true);
}

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The Python programs an exported task's test.sh runs inside Harbor's container (python3, no
 * packages), kept as files in harbor/python/ and written into the task's tests/ as they are:
 *
 * - grader.py, the field grader: the same comparators as rlenv's own (src/core/reward/comparators:
 *   exact, text, number, json; money, percent and quantity with units, scale and sign; the
 *   citation check against the cited page's text) written again in Python, line for line, so
 *   that a task scores the same in Harbor as here. test/unit/harbor-grader.test.ts runs both on
 *   the same table of cases. Comparators it does not have (judge, date, entities, legal text)
 *   score 0 with the reason, and the export warns about them.
 *   Usage: grader.py SPEC.json ANSWER.json → prints the score; SPEC is
 *   {"mode": "mean"|"all", "fields": {path: {comparator, weight, rel_tol, abs_tol, rounding, cite, expected}}, "pages": {doc: {page: text}}}.
 *   Details go to stderr as JSON lines.
 * - stdio_runner.py: a `tests` verifier's stdio cases (Debian's python3-pytest compares: test.sh
 *   scripts run with python3, there in every image the export writes).
 * - script_score.py: a `script` verifier's last line of output as a score in [0, 1].
 * - reward_json.py: writes reward.json from argv triples (name, weight, score); a score that is
 *   no number counts 0, said on stderr.
 */
export type HarborPythonFile = "grader.py" | "stdio_runner.py" | "script_score.py" | "reward_json.py";

/**
 * Read from beside this module when run from source (tsx), from dist/harbor/python when bundled
 * (the build copies the folder there, and the .vsix carries it), or from the package's src
 * folder; a bundle in a folder below dist/ (the extension-host tests' dist/test/extension) looks
 * up from where it is.
 */
const cache = new Map<HarborPythonFile, string>();
export function harborPython(name: HarborPythonFile): string {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  const candidates: string[] = [];
  for (let up = 0, dir = __dirname; up < 4; up++, dir = path.dirname(dir))
    candidates.push(
      path.join(dir, "python", name),
      path.join(dir, "harbor", "python", name),
      path.join(dir, "..", "src", "core", "harbor", "python", name),
    );
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`Harbor's ${name} is not found (looked in ${candidates.join(", ")})`);
  const text = readFileSync(found, "utf8");
  cache.set(name, text);
  return text;
}

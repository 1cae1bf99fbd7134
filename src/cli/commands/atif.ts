import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { atifToEvents, isAtif } from "../../core/harbor/atif";
import { exportAtifTrajectories } from "../../core/harbor/export-atif";
import type { RlExportOptions } from "../../core/runs/export-rl";
import { VERSION } from "../version";

/**
 * `rlenv export RUN --format atif --out-dir DIR`: one ATIF trajectory per rollout,
 * `DIR/<rollout-id>.json` (Harbor's layout; `rlenv view` opens each). The rollouts are the
 * ones every format exports; one whose tokens do not read back is named on stderr and left out.
 */
export function writeAtifFolder(run: string, dir: string, filters: RlExportOptions): { written: number; broken: string[] } {
  mkdirSync(dir, { recursive: true });
  let written = 0;
  const broken: string[] = [];
  for (const item of exportAtifTrajectories(run, VERSION, filters)) {
    if ("broken" in item) broken.push(item.broken);
    else {
      writeFileSync(path.join(dir, `${item.name}.json`), `${JSON.stringify(item.atif, null, 2)}\n`);
      written++;
    }
  }
  return { written, broken };
}

/** `rlenv export RUN --format atif [--out FILE]`: one ATIF trajectory per line; `broken` collects the rollouts left out. */
export function* atifLines(run: string, filters: RlExportOptions, broken: string[]): Generator<string> {
  for (const item of exportAtifTrajectories(run, VERSION, filters)) {
    if ("broken" in item) broken.push(item.broken);
    else yield JSON.stringify(item.atif);
  }
}

/**
 * For `rlenv view`: an ATIF file (a .json whose schema_version is ATIF-…) becomes a rollout file
 * of ours in a temporary run folder, which the viewer opens; any other path is returned as is.
 */
export function viewableAtif(p: string): string {
  if (!p.endsWith(".json")) return p;
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(p, "utf8"));
  } catch {
    return p;
  }
  if (!isAtif(v)) return p;
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-atif-"));
  mkdirSync(path.join(root, "rollouts"));
  const file = path.join(root, "rollouts", `${path.basename(p, ".json")}.jsonl`);
  writeFileSync(
    file,
    atifToEvents(v)
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(""),
  );
  process.stderr.write(`${p}: an ATIF trajectory (${v.schema_version}), shown from ${file}\n`);
  return file;
}

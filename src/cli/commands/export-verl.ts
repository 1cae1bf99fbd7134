import { existsSync, statSync, writeFileSync } from "node:fs";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import type { Environment } from "../../core/model/environment";
import { verlRows, verlRowsToParquet } from "../../core/runs/export-verl";

/**
 * `rlenv export verl DIR… --out FILE.parquet [--split S]`: every task of the environments as verl's RL
 * dataset (docs/exports.md). An environment that does not load is named with its problems and
 * nothing is written: a dataset missing some tasks would train on a different set than asked.
 */
export function exportVerlCommand(dirs: string[], o: { out?: string; split?: string }): void {
  if (!o.out) throw new Error("export verl writes a Parquet file: name it with --out FILE.parquet");
  if (existsSync(o.out) && statSync(o.out).isDirectory()) throw new Error(`--out names the file to write; ${o.out} is a folder`);
  const envs: Environment[] = [];
  let failed = false;
  for (const dir of dirs) {
    if (!existsSync(dir)) throw new Error(`${dir}: no such folder`);
    const { env, problems } = loadEnvironment(dir);
    if (!env || problems.some((p) => p.severity === "error")) {
      for (const p of problems) if (p.severity === "error") process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
      process.stderr.write(`✗ ${dir}: the environment does not load; fix it first (rlenv validate)\n`);
      failed = true;
    } else envs.push(env);
  }
  if (failed) {
    process.exitCode = 1;
    return;
  }
  const rows = verlRows(envs, o.split ?? "train");
  writeFileSync(o.out, verlRowsToParquet(rows));
  process.stderr.write(
    `exported ${rows.length} task${rows.length === 1 ? "" : "s"} of ${envs.length} environment${envs.length === 1 ? "" : "s"} as a verl dataset: ${o.out}\n`,
  );
}

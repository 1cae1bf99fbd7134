import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { exportHarbor } from "../../core/harbor/export";
import type { ExportDocument } from "../../core/harbor/export-grader";
import { importHarbor } from "../../core/harbor/import";
import { expandHarborFolders, isHarborTask } from "../../core/harbor/load-harbor";

/** `rlenv import harbor SRC --out OUT`: Harbor task folders into native environment folders, one per task. */
export function registerImport(program: Command): void {
  program
    .command("import")
    .description("Convert tasks of another format into native environment folders (harbor: one environment per task)")
    .argument("<format>", "harbor")
    .argument("<src>", "a Harbor task folder, or a folder of them")
    .requiredOption("-o, --out <dir>", "where the environment folders go")
    .action((format: string, src: string, o: { out: string }) => {
      if (format !== "harbor") throw new Error(`import: the format must be harbor, got '${format}'`);
      const dirs = expandHarborFolders([src]).filter((d) => isHarborTask(path.resolve(d)));
      if (dirs.length === 0) throw new Error(`${src}: no Harbor task here (a folder with task.toml, or a folder of them)`);
      const r = importHarbor(dirs, path.resolve(o.out));
      for (const w of r.written) process.stdout.write(`✓ ${path.relative(process.cwd(), w) || w}\n`);
      for (const f of r.failed) process.stdout.write(`✗ ${f.dir}: ${f.message}\n`);
      if (r.failed.length > 0) process.exitCode = 1;
    });
}

/** `rlenv export harbor DIR --out OUT`: every task of an environment (or of each environment given) as Harbor task folders. */
export async function exportHarborCommand(dirs: string[], out: string | undefined): Promise<void> {
  if (!out) throw new Error("export harbor needs --out DIR: the folder the Harbor tasks go to");
  let failed = false;
  for (const dir of dirs) {
    if (!existsSync(dir)) throw new Error(`${dir}: no such folder`);
    const { env, problems } = loadEnvironment(dir);
    if (!env || problems.some((p) => p.severity === "error")) {
      for (const p of problems) if (p.severity === "error") process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
      process.stdout.write(`✗ ${dir}: the environment does not load; fix it first (rlenv validate)\n`);
      failed = true;
      continue;
    }
    // The documents' pages, for the citation checks the exported grader makes (loaded only when there are documents).
    let documents: ExportDocument[] = [];
    if (env.paths.documents) {
      const { loadCorpus } = await import("../../core/domains/document/corpus");
      documents = (await loadCorpus(env.paths.documents, env.manifest.documents?.chunk_tokens ?? 200)).documents;
    }
    const r = exportHarbor(env, path.resolve(out), { documents });
    for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
    process.stdout.write(`✓ ${env.manifest.name}: ${r.written.length} Harbor task${r.written.length === 1 ? "" : "s"} in ${out}\n`);
  }
  if (failed) process.exitCode = 1;
}

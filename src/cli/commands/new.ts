import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { templateFiles } from "../../core/environment/templates";
import { Domain } from "../../core/schema/common";

/** Write a starter environment; refuses to overwrite a non-empty folder. */
export function scaffoldEnvironment(domain: Domain, name: string, dir: string): string[] {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} exists and is not empty`);
  const files = templateFiles(domain, name);
  for (const [rel, text] of Object.entries(files)) {
    const target = path.join(dir, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return Object.keys(files);
}

export function registerNew(program: Command): void {
  program
    .command("new")
    .description("Create a working environment from a template")
    .argument("<domain>", `one of ${Domain.options.join(", ")}`)
    .argument("<name>", "environment name (also the folder name unless --dir)")
    .option("--dir <dir>", "folder to create")
    .action((domain: string, name: string, opts: { dir?: string }) => {
      const d = Domain.safeParse(domain);
      if (!d.success) throw new Error(`unknown domain '${domain}': expected one of ${Domain.options.join(", ")}`);
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new Error(`invalid name '${name}': use letters, digits, '.', '_' or '-'`);
      const dir = path.resolve(opts.dir ?? name);
      const files = scaffoldEnvironment(d.data, name, dir);
      process.stdout.write(
        `created ${path.relative(process.cwd(), dir) || "."}/ with ${files.join(", ")}\nnext: rlenv validate ${path.relative(process.cwd(), dir) || "."}\n`,
      );
    });
}

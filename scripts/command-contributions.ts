// Writes package.json's contributes.commands and contributes.menus from the command table
// (src/extension/commands/contributions.ts). `--check` exits 1 when package.json differs.
// Run it under the same lock as scripts/pkg-edit.mjs when others may be editing package.json:
//   flock /tmp/rlenv-npm.lock npx tsx scripts/command-contributions.ts
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { contributesFromTable } from "../src/extension/commands/contributions";
import { contributionsDrift } from "../src/extension/commands/contributions-drift";

const file = path.join(__dirname, "..", "package.json");
const pkg = JSON.parse(readFileSync(file, "utf8")) as { contributes: Record<string, unknown> };
const drift = contributionsDrift(pkg.contributes, contributesFromTable());
if (process.argv.includes("--check")) {
  for (const d of drift) console.error(`package.json: ${d}`);
  if (drift.length > 0)
    console.error("package.json's commands differ from the command table: run npx tsx scripts/command-contributions.ts");
  process.exit(drift.length > 0 ? 1 : 0);
}
if (drift.length === 0) process.exit(0);
const table = contributesFromTable();
pkg.contributes.commands = table.commands;
pkg.contributes.menus = table.menus;
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`package.json: ${drift.length} difference(s) written from the command table`);

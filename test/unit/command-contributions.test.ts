import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { COMMAND_CONTRIBUTIONS, contributesFromTable } from "../../src/extension/commands/contributions";
import { contributionsDrift } from "../../src/extension/commands/contributions-drift";

const REPO = path.resolve(import.meta.dirname, "..", "..");

/** Every command id a CommandSpec registers, read from the extension's source. */
function registeredIds(): Set<string> {
  const ids = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts")) for (const m of readFileSync(p, "utf8").matchAll(/\bid: "(rlenv\.[\w.]+)"/g)) ids.add(m[1]!);
    }
  };
  walk(path.join(REPO, "src", "extension"));
  return ids;
}

describe("command table and package.json", () => {
  test("package.json's commands and menus (with their when clauses) are the table's", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { contributes: Record<string, unknown> };
    assert.deepEqual(contributionsDrift(pkg.contributes, contributesFromTable()), []);
  });

  test("every command in the table is registered by the extension", () => {
    const registered = registeredIds();
    for (const id of Object.keys(COMMAND_CONTRIBUTIONS)) assert.ok(registered.has(id), `${id} is in the table but nothing registers it`);
  });

  test("a changed when clause, a missing command and an extra menu entry are each reported", () => {
    const table = contributesFromTable();
    const pkg = structuredClone(table) as { commands: Record<string, string>[]; menus: Record<string, Record<string, string>[]> };
    const item = pkg.menus["view/item/context"]!.find((m) => m.command === "rlenv.validate")!;
    item.when = "view == rlenv.environments";
    pkg.commands = pkg.commands.filter((c) => c.command !== "rlenv.showLog");
    pkg.menus.commandPalette!.push({ command: "rlenv.showLog", when: "false" });
    const drift = contributionsDrift(pkg, table);
    assert.ok(
      drift.some((d) => /menu view\/item\/context lacks .*rlenv\.validate/.test(d)),
      drift.join("\n"),
    );
    assert.ok(
      drift.some((d) => d === "command rlenv.showLog is missing"),
      drift.join("\n"),
    );
    assert.ok(
      drift.some((d) => /menu commandPalette has .*rlenv\.showLog/.test(d)),
      drift.join("\n"),
    );
  });
});

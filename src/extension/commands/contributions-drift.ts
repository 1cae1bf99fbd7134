import { isDeepStrictEqual } from "node:util";

type Entry = Record<string, unknown>;

const key = (e: Entry) => JSON.stringify(Object.entries(e).sort(([a], [b]) => a.localeCompare(b)));

/**
 * How package.json's contributes differ from the table's, one line each (none when they
 * agree). Commands compare in order (the palette lists them so); a menu's entries compare
 * as a set, since their position comes from `group`, not from the order in the file.
 */
export function contributionsDrift(
  contributes: Record<string, unknown>,
  table: { commands: Entry[]; menus: Record<string, Entry[]> },
): string[] {
  const out: string[] = [];
  const commands = (contributes.commands ?? []) as Entry[];
  const byId = new Map(commands.map((c) => [c.command, c]));
  for (const c of table.commands) {
    const have = byId.get(c.command);
    if (!have) out.push(`command ${String(c.command)} is missing`);
    else if (!isDeepStrictEqual(have, c))
      out.push(`command ${String(c.command)} is ${JSON.stringify(have)}, the table says ${JSON.stringify(c)}`);
  }
  const tableIds = new Set(table.commands.map((c) => c.command));
  for (const c of commands) if (!tableIds.has(c.command)) out.push(`command ${String(c.command)} is not in the command table`);
  if (
    out.length === 0 &&
    !isDeepStrictEqual(
      commands.map((c) => c.command),
      [...tableIds],
    )
  )
    out.push("commands are in another order");
  const menus = (contributes.menus ?? {}) as Record<string, Entry[]>;
  for (const menu of new Set([...Object.keys(menus), ...Object.keys(table.menus)])) {
    const have = new Set((menus[menu] ?? []).map(key));
    const want = new Set((table.menus[menu] ?? []).map(key));
    for (const w of want) if (!have.has(w)) out.push(`menu ${menu} lacks ${w}`);
    for (const h of have) if (!want.has(h)) out.push(`menu ${menu} has ${h}, which the command table does not`);
  }
  return out;
}

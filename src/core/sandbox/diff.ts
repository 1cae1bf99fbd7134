import { CUT_PATH, unreadSize } from "./read-bounds";
import type { FileDiff } from "../schema/trajectory";

/** A text file decodes as UTF-8 without NUL bytes; anything else is shown as binary. */
function asText(b: Buffer): string | null {
  if (b.includes(0)) return null;
  const s = b.toString("utf8");
  return Buffer.from(s, "utf8").equals(b) ? s : null;
}

/**
 * Changes from `seed` to `current` (paths relative to the workdir), sorted by path. `cut`: the
 * read of `current` stopped at its file bound (see read-bounds.ts): a seed file it did not reach
 * is taken as unchanged rather than deleted, and one more entry, CUT_PATH, says so. A file read
 * as a stand-in (too large) is taken as unchanged when the seed's has the size it names.
 */
export function diffFiles(seed: ReadonlyMap<string, Buffer>, current: ReadonlyMap<string, Buffer>, cut: string | null = null): FileDiff[] {
  const out: FileDiff[] = [];
  const paths = new Set([...seed.keys(), ...current.keys()]);
  for (const p of [...paths].sort()) {
    const before = seed.get(p);
    const after = current.get(p);
    if (before && after && before.equals(after)) continue;
    if (before && !after && cut) continue;
    if (before && after && unreadSize(after) === before.length) continue;
    const status = !before ? "added" : !after ? "deleted" : "modified";
    const bt = before ? asText(before) : null;
    const at = after ? asText(after) : null;
    const binary = (before !== undefined && bt === null) || (after !== undefined && at === null);
    out.push({ path: p, status, before: binary ? null : bt, after: binary ? null : at, ...(binary ? { binary } : {}) });
  }
  if (cut) out.push({ path: CUT_PATH, status: "added", before: null, after: cut });
  return out;
}

export function toBuffer(v: string | Buffer): Buffer {
  return typeof v === "string" ? Buffer.from(v, "utf8") : v;
}

/** Seed files as a map of normalised relative paths. */
export function seedMap(seed: Record<string, string | Buffer>): Map<string, Buffer> {
  return new Map(Object.entries(seed).map(([p, v]) => [p.replace(/^\.\//, ""), toBuffer(v)]));
}

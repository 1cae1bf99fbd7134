import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Where a file the audit reads at run time lives (its Python helpers, its probe library),
 * `rel` being its path below src/core/audit ("python/rlenv_mutate.py", "probes"). From source
 * it is beside this module; in a bundle the build copies both folders to dist/audit/, so a
 * dist-only install (the .vsix, a copied dist/) has them; a bundle in a folder below dist/
 * (the extension-host tests' dist/test/extension) looks up from where it is; the package's
 * src folder is the last resort. Null when none of these has it.
 */
export function findAuditAsset(rel: string): { found: string | null; looked: string[] } {
  const looked: string[] = [];
  for (let up = 0, dir = __dirname; up < 4; up++, dir = path.dirname(dir))
    looked.push(path.join(dir, rel), path.join(dir, "audit", rel), path.join(dir, "..", "src", "core", "audit", rel));
  return { found: looked.find((p) => existsSync(p)) ?? null, looked };
}

/** As findAuditAsset, throwing with every place looked when it is nowhere. */
export function auditAssetPath(rel: string, what: string): string {
  const { found, looked } = findAuditAsset(rel);
  if (!found) throw new Error(`${what} was not found (looked in ${looked.join(", ")})`);
  return found;
}

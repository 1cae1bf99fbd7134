import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Write an environment folder from a map of relative path → text (or {symlink: target}); returns its path and a cleanup. */
export function makeEnvDir(files: Record<string, string | { symlink: string }>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-env-"));
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    if (typeof content === "string") writeFileSync(p, content);
    else symlinkSync(content.symlink, p);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

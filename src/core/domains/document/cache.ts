import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DocumentPage } from "./types";

/** Bump when a parser's output changes, so stale cached pages are not reused. */
export const PARSER_VERSION = 1;

/**
 * Where parsed pages are kept, keyed by content hash: outside the environment folder (its
 * content hash must not change when a cache is written). RLENV_CACHE_DIR overrides.
 */
export function cacheDir(): string {
  const base = process.env.RLENV_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "rlenv");
  return path.join(base, "documents");
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function entryPath(hash: string, format: string): string {
  return path.join(cacheDir(), `${hash}.${format}.v${PARSER_VERSION}.json`);
}

/** Cached pages for this content, or undefined (a missing or unreadable entry is a miss, never an error). */
export function readCached(hash: string, format: string): DocumentPage[] | undefined {
  try {
    const data = JSON.parse(readFileSync(entryPath(hash, format), "utf8")) as unknown;
    if (!Array.isArray(data)) return undefined;
    const ok = data.every((p) => typeof p?.number === "number" && typeof p?.text === "string");
    return ok ? (data as DocumentPage[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Store pages; written to a temp name then renamed so a concurrent reader never sees half a file. */
export function writeCached(hash: string, format: string, pages: DocumentPage[]): void {
  try {
    const file = entryPath(hash, format);
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(pages));
    renameSync(tmp, file);
  } catch {
    // A read-only or full disk only costs a re-parse next time.
  }
}

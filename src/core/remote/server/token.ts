import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export const TOKEN_FILE = "token";

/** The runner's bearer token: made at first start, kept 0600 in the data dir. */
export function loadOrCreateToken(dataDir: string): { token: string; file: string; created: boolean } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, TOKEN_FILE);
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    // Someone widened it: narrow it again rather than serve with a readable secret.
    if (mode & 0o077) chmodSync(file, 0o600);
    const token = readFileSync(file, "utf8").trim();
    if (token.length >= 16) return { token, file, created: false };
  }
  const token = randomBytes(32).toString("base64url");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, file, created: true };
}

/**
 * Constant-time check of an `Authorization` header against the token. Both sides are
 * hashed first so that the comparison takes the same time whatever the lengths.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}

/** Parses a size such as "512m", "2g", "1.5GiB", "64k" or a plain byte count into bytes (binary units). */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(text);
  if (!m?.[1]) throw new Error(`not a size: "${text}" (expected e.g. 512m, 2g)`);
  const unit = (m[2] ?? "").toLowerCase();
  const power = { "": 0, k: 1, m: 2, g: 3, t: 4 }[unit] ?? 0;
  return Math.round(Number(m[1]) * 1024 ** power);
}

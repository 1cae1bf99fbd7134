/**
 * Base85 with RFC 1924's alphabet, byte for byte what Python's `base64.b85encode` writes and
 * `base64.b85decode` reads (standard library): 5 characters per 4 bytes where base64 takes 5.33, and
 * no character JSON has to escape (no `"` or `\`), so a JSON string holds it as it is.
 * A last group of n < 4 bytes is padded with zeros, encoded, and cut to n + 1 characters.
 */
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
const CODES = Buffer.from(ALPHABET, "latin1");
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < CODES.length; i++) VALUE[CODES[i] as number] = i;

export function encodeBase85(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = Buffer.allocUnsafe(Math.ceil((n * 5) / 4));
  let at = 0;
  for (let i = 0; i < n; i += 4) {
    const b1 = i + 1 < n ? (bytes[i + 1] as number) : 0;
    const b2 = i + 2 < n ? (bytes[i + 2] as number) : 0;
    const b3 = i + 3 < n ? (bytes[i + 3] as number) : 0;
    let v = (bytes[i] as number) * 0x1000000 + ((b1 << 16) | (b2 << 8) | b3);
    const keep = Math.min(5, n - i + 1);
    for (let k = 4; k >= 0; k--) {
      const d = v % 85;
      if (k < keep) out[at + k] = CODES[d] as number;
      v = (v - d) / 85;
    }
    at += keep;
  }
  return out.toString("latin1", 0, at);
}

export function decodeBase85(text: string): Uint8Array {
  const n = text.length;
  if (n % 5 === 1) throw new Error(`base85: ${n} characters, a length no encoding gives (a last group of 1)`);
  const out = new Uint8Array(Math.floor(n / 5) * 4 + Math.max(0, (n % 5) - 1));
  let at = 0;
  for (let i = 0; i < n; i += 5) {
    let v = 0;
    for (let k = 0; k < 5; k++) {
      // A short last group is padded with the highest digit, as Python does.
      const c = i + k < n ? text.charCodeAt(i + k) : 126;
      const d = c < 128 ? (VALUE[c] as number) : -1;
      if (d < 0) throw new Error(`base85: character ${JSON.stringify(text[i + k])} at ${i + k} is not in the alphabet`);
      v = v * 85 + d;
    }
    if (v > 0xffffffff) throw new Error(`base85: group at ${i} is larger than 4 bytes hold`);
    const bytes = Math.min(4, n - i - 1);
    for (let k = 0; k < bytes; k++) out[at++] = Math.floor(v / 2 ** (24 - 8 * k)) & 0xff;
  }
  return out;
}

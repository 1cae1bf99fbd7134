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
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = Buffer.allocUnsafe(Math.ceil((n * 5) / 4));
  let at = 0;
  for (let i = 0; i < n; i += 4) {
    const v =
      i + 4 <= n
        ? buf.readUInt32BE(i)
        : (buf[i] as number) * 0x1000000 + (((buf[i + 1] ?? 0) << 16) | ((buf[i + 2] ?? 0) << 8) | (buf[i + 3] ?? 0));
    // Digits by float division, in two halves that fit int32: `%` on a number past 2^31 is a slow fmod.
    const hi = Math.floor(v / 7225);
    const lo = v - hi * 7225;
    const h1 = (hi / 85) | 0;
    const h2 = (h1 / 85) | 0;
    const l1 = (lo / 85) | 0;
    out[at] = CODES[h2] as number;
    out[at + 1] = CODES[h1 - h2 * 85] as number;
    out[at + 2] = CODES[hi - h1 * 85] as number;
    out[at + 3] = CODES[l1] as number;
    out[at + 4] = CODES[lo - l1 * 85] as number;
    at += Math.min(5, n - i + 1);
  }
  return out.toString("latin1", 0, at);
}

export function decodeBase85(text: string): Uint8Array {
  const n = text.length;
  if (n % 5 === 1) throw new Error(`base85: ${n} characters, a length no encoding gives (a last group of 1)`);
  const out = Buffer.alloc(Math.floor(n / 5) * 4 + 4);
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
    out.writeUInt32BE(v, at);
    at += Math.min(4, n - i - 1);
  }
  return new Uint8Array(out.buffer, out.byteOffset, at);
}

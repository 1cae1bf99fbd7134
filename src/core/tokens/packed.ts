import { deflateSync, inflateSync } from "node:zlib";

/**
 * One turn's tokens as one packed block (the trajectory's `encoding: 2`): zlib (RFC 1950) of
 *
 *   byte 0      layout version (2)
 *   byte 1      W, bytes per id (1–4: the fewest that hold the largest id)
 *   byte 2      flags: bit 0 set when logprobs follow
 *   byte 3      0
 *   bytes 4–11  uint32 LE: prompt id count P, completion id count C
 *   W planes of P + C bytes: plane k holds byte k (little-endian) of every id, prompt ids then completion ids
 *   4 planes of C bytes (when flagged): plane k holds byte k of every logprob's float32 LE bits
 *
 * then base64. Lossless: ids are exact integers and logprobs the exact float32 values servers
 * compute. Splitting bytes into planes puts alike bytes together (an id's high byte takes a few
 * values, a logprob's sign-and-exponent byte a few dozen), which deflate then shrinks; the
 * mantissa planes of logprobs are close to random and stay near their size. A cheap deflate level:
 * the higher ones save under 1% here and cost several times the CPU on every turn.
 */
export interface TurnArrays {
  promptIds: number[];
  completionIds: number[];
  /** One per completion id, when the server returned them. */
  logprobs?: number[];
}

const LAYOUT = 2;
const HEADER = 12;
const LEVEL = 2;
/** A bound on one turn unpacked (about 12 million tokens with logprobs): a damaged or hostile field cannot fill the memory. */
const MAX_UNPACKED = 128 * 2 ** 20;

export function packTurn(t: TurnArrays): string {
  const p = t.promptIds.length;
  const c = t.completionIds.length;
  const n = p + c;
  let max = 0;
  for (const id of t.promptIds) max = Math.max(max, checkId(id));
  for (const id of t.completionIds) max = Math.max(max, checkId(id));
  const w = max < 0x100 ? 1 : max < 0x10000 ? 2 : max < 0x1000000 ? 3 : 4;
  const lps = t.logprobs;
  if (lps && lps.length !== c) throw new Error(`packTurn: ${lps.length} logprobs for ${c} completion ids`);
  const buf = Buffer.alloc(HEADER + w * n + (lps ? 4 * c : 0));
  buf[0] = LAYOUT;
  buf[1] = w;
  buf[2] = lps ? 1 : 0;
  buf.writeUInt32LE(p, 4);
  buf.writeUInt32LE(c, 8);
  let at = HEADER;
  for (let k = 0; k < w; k++) {
    const shift = 8 * k;
    for (let i = 0; i < p; i++) buf[at + i] = ((t.promptIds[i] as number) >>> shift) & 0xff;
    for (let i = 0; i < c; i++) buf[at + p + i] = ((t.completionIds[i] as number) >>> shift) & 0xff;
    at += n;
  }
  if (lps) {
    const bits = new Uint8Array(Float32Array.from(lps).buffer);
    // Typed arrays use the host's byte order; the layout is little-endian.
    const order = new Uint8Array(new Uint32Array([0x03020100]).buffer);
    for (let k = 0; k < 4; k++) {
      const b = order[k] as number;
      for (let i = 0; i < c; i++) buf[at + i] = bits[4 * i + b] as number;
      at += c;
    }
  }
  return deflateSync(buf, { level: LEVEL }).toString("base64");
}

export function unpackTurn(packed: string): TurnArrays {
  let buf: Buffer;
  try {
    buf = inflateSync(Buffer.from(packed, "base64"), { maxOutputLength: MAX_UNPACKED });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new Error(`packed tokens: unpacks to more than ${MAX_UNPACKED / 2 ** 20} MiB, more than any turn holds`);
    throw new Error(`packed tokens: not a zlib stream in base64 (${(e as Error).message})`);
  }
  if (buf.length < HEADER) throw new Error(`packed tokens: ${buf.length} bytes, shorter than the ${HEADER}-byte header`);
  if (buf[0] !== LAYOUT) throw new Error(`packed tokens: layout ${buf[0]}, this rlenv reads layout ${LAYOUT}`);
  const w = buf[1] as number;
  const withLogprobs = ((buf[2] as number) & 1) === 1;
  if (w < 1 || w > 4) throw new Error(`packed tokens: ${w} bytes per id (1 to 4 expected)`);
  const p = buf.readUInt32LE(4);
  const c = buf.readUInt32LE(8);
  const n = p + c;
  const want = HEADER + w * n + (withLogprobs ? 4 * c : 0);
  if (buf.length !== want) throw new Error(`packed tokens: ${buf.length} bytes where ${p} prompt and ${c} completion ids take ${want}`);
  const ids = new Array<number>(n).fill(0);
  let at = HEADER;
  for (let k = 0; k < w; k++) {
    const mul = 2 ** (8 * k);
    for (let i = 0; i < n; i++) ids[i] = (ids[i] as number) + (buf[at + i] as number) * mul;
    at += n;
  }
  const out: TurnArrays = { promptIds: ids.slice(0, p), completionIds: ids.slice(p) };
  if (withLogprobs) {
    const f = new Float32Array(c);
    const bits = new Uint8Array(f.buffer);
    const order = new Uint8Array(new Uint32Array([0x03020100]).buffer);
    for (let k = 0; k < 4; k++) {
      const b = order[k] as number;
      for (let i = 0; i < c; i++) bits[4 * i + b] = buf[at + i] as number;
      at += c;
    }
    out.logprobs = Array.from(f);
  }
  return out;
}

function checkId(id: number): number {
  if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new Error(`packTurn: token id ${id} is not an integer in 0..2^32-1`);
  return id;
}

import { deflateRawSync, inflateRawSync } from "node:zlib";
import { decodeBase85, encodeBase85 } from "./base85";
import type { TurnArrays } from "./packed";

/**
 * One turn's tokens as one packed block (the trajectory's `encoding: 3`): base85 (RFC 1924, Python's
 * `base64.b85decode`) of
 *
 *   byte 0     layout version (3)
 *   byte 1     flags: bit 0 set when logprobs follow
 *   varint P, varint C: prompt and completion id counts (LEB128, as protobuf writes them)
 *   sections, each a varint h then h >> 1 bytes: raw DEFLATE (RFC 1951) when h & 1, else the bytes as they are
 *     1. the P + C ids, prompt first, each a LEB128 varint
 *     2–5 (when flagged). the C logprobs' float32 bits, one section per byte from the high one (sign and
 *        exponent) down: byte 3 in sequence order; each lower byte in the order of a stable sort on
 *        the bytes above it, which the reader already has.
 *
 * Lossless: ids are exact integers and logprobs the exact float32 bits the server computed (-0, -inf
 * and NaN included). Why this shape: a varint spends fewer bytes on the frequent low ids and keeps a
 * token's bytes together for deflate to match; each logprob byte gets its own Huffman table (the
 * exponent takes a few dozen values, the low mantissa bytes are near random and stay stored); and
 * sorting a lower byte by the bytes above it puts equal values side by side (a sampler's float32
 * log-softmax gives the same value again and again for near-certain tokens), which deflate then matches.
 * Base85 takes 25% over the bytes where base64 took 33%. Each turn stands alone: a reader needs no
 * other line of the file.
 */
const LAYOUT = 3;
/** A bound on one turn's ids (32 million): a damaged or hostile block cannot fill the memory. */
const MAX_IDS = 2 ** 25;

/**
 * Working memory kept between turns (a turn is packed in one synchronous call, so nothing can see it
 * half-used): the id bytes, the float bits and planes, and the sort's index arrays, grown as needed.
 * Each turn used to allocate them afresh. What leaves a call is copied out (Buffer.concat, base85).
 */
interface Scratch {
  bytes: Uint8Array;
  floats: Float32Array;
  planes: Uint8Array;
  order: Uint32Array;
  next: Uint32Array;
}
const scratch: Scratch = {
  bytes: new Uint8Array(0),
  floats: new Float32Array(0),
  planes: new Uint8Array(0),
  order: new Uint32Array(0),
  next: new Uint32Array(0),
};
const byteCounts = new Uint32Array(256);
/** Past this many elements an array is allocated for the call and let go of: one huge turn does not hold its memory for good. */
const KEEP = 1 << 20;
/** `scratch[name]` with room for n elements (grown and kept), or a fresh array when n is past KEEP. */
function room<K extends keyof Scratch>(name: K, n: number, make: (n: number) => Scratch[K]): Scratch[K] {
  const have = scratch[name];
  if (have.length >= n) return have;
  if (n > KEEP) return make(n);
  const grown = make(Math.min(KEEP, Math.max(n, have.length * 2)));
  scratch[name] = grown;
  return grown;
}

export function packTurnV3(t: TurnArrays): string {
  const p = t.promptIds.length;
  const c = t.completionIds.length;
  const lps = t.logprobs;
  if (lps && lps.length !== c) throw new Error(`packTurn: ${lps.length} logprobs for ${c} completion ids`);
  if (p + c > MAX_IDS) throw new Error(`packTurn: ${p + c} ids in one turn, more than ${MAX_IDS}`);
  const ids = room("bytes", 5 * (p + c), (n) => new Uint8Array(n));
  let n = 0;
  for (const list of [t.promptIds, t.completionIds])
    for (const id of list) {
      if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new Error(`packTurn: token id ${id} is not an integer in 0..2^32-1`);
      let v = id;
      while (v >= 0x80) {
        ids[n++] = (v & 0x7f) | 0x80;
        v = Math.floor(v / 0x80);
      }
      ids[n++] = v;
    }
  const parts: Uint8Array[] = [Uint8Array.of(LAYOUT, lps ? 1 : 0), varint(p), varint(c)];
  section(parts, ids.subarray(0, n));
  if (lps) for (const plane of floatPlanes(lps)) section(parts, plane);
  return encodeBase85(Buffer.concat(parts));
}

export function unpackTurnV3(packed: string): TurnArrays {
  let buf: Uint8Array;
  try {
    buf = decodeBase85(packed);
  } catch (e) {
    throw new Error(`packed tokens: ${(e as Error).message}`);
  }
  const r = new Reader(buf);
  const layout = r.byte();
  if (layout !== LAYOUT) throw new Error(`packed tokens: layout ${layout}, encoding 3 is layout ${LAYOUT}`);
  const flags = r.byte();
  const p = r.varint("prompt id count");
  const c = r.varint("completion id count");
  if (p + c > MAX_IDS) throw new Error(`packed tokens: ${p} prompt and ${c} completion ids, more than any turn holds (${MAX_IDS})`);
  const idBytes = r.section("ids", 5 * (p + c), false);
  const ids = new Array<number>(p + c);
  let at = 0;
  for (let i = 0; i < p + c; i++) {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (at >= idBytes.length) throw new Error(`packed tokens: the ids section ends inside id ${i} of ${p + c}`);
      const b = idBytes[at++] as number;
      v += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 28) throw new Error(`packed tokens: id ${i} runs past 5 bytes`);
    }
    if (v > 0xffffffff) throw new Error(`packed tokens: id ${i} is ${v}, past 2^32-1`);
    ids[i] = v;
  }
  if (at !== idBytes.length) throw new Error(`packed tokens: ${idBytes.length - at} bytes left after the ${p + c} ids`);
  const out: TurnArrays = { promptIds: ids.slice(0, p), completionIds: ids.slice(p) };
  if (flags & 1) {
    const planes = [0, 1, 2, 3].map((k) => r.section(`logprob byte ${3 - k}`, c, true));
    out.logprobs = Array.from(floatsFromPlanes(planes, c));
  }
  if (!r.done()) throw new Error(`packed tokens: ${r.left()} bytes after the last section`);
  return out;
}

function varint(v: number): Uint8Array {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A section: deflated when that is smaller, as it is otherwise. */
function section(parts: Uint8Array[], bytes: Uint8Array): void {
  let body: Uint8Array = bytes;
  let deflated = false;
  if (mayShrink(bytes)) {
    // A window no larger than the section: the same output, and far less state to set up per call.
    const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(bytes.length + 1))));
    const z = deflateRawSync(bytes, { level: 9, windowBits, memLevel: Math.max(1, windowBits - 6) });
    deflated = z.length < bytes.length;
    if (deflated) body = z;
  }
  parts.push(varint(body.length * 2 + (deflated ? 1 : 0)), body);
}

/**
 * Whether deflate can beat storing: false for bytes that look random (the low mantissa bytes of
 * logprobs), where a deflate call costs more CPU than the whole rest of the turn's packing and
 * gives nothing back. Judged by their order-0 entropy (what Huffman coding can save, less a table's
 * cost) and by runs of 3 or more equal bytes (what matching can save).
 */
function mayShrink(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (n < 64) return n > 0;
  const counts = byteCounts.fill(0);
  let runs = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    counts[b] = (counts[b] as number) + 1;
    if (i >= 2 && b === bytes[i - 1] && b === bytes[i - 2]) runs++;
  }
  let bits = 0;
  for (const c of counts) if (c > 0) bits -= c * Math.log2(c / n);
  return bits / 8 + 48 < n * 0.98 || runs > n / 8;
}

/** The four byte planes of the float32 bits, high byte first, each lower one sorted by the bytes above it. */
function floatPlanes(lps: readonly number[]): Uint8Array[] {
  const c = lps.length;
  const floats = room("floats", c, (n) => new Float32Array(n));
  for (let i = 0; i < c; i++) floats[i] = lps[i] as number;
  const bits = new Uint32Array(floats.buffer, 0, c);
  const all = room("planes", 4 * c, (n) => new Uint8Array(n));
  const planes = [all.subarray(0, c), all.subarray(c, 2 * c), all.subarray(2 * c, 3 * c), all.subarray(3 * c, 4 * c)];
  const top = planes[0] as Uint8Array;
  for (let i = 0; i < c; i++) top[i] = (bits[i] as number) >>> 24;
  for (let k = 1; k < 4; k++) {
    const order = stableOrder(bits, 32 - 8 * k);
    const plane = planes[k] as Uint8Array;
    const shift = 24 - 8 * k;
    for (let j = 0; j < c; j++) plane[j] = ((bits[order[j] as number] as number) >>> shift) & 0xff;
  }
  return planes;
}

function floatsFromPlanes(planes: Uint8Array[], c: number): Float32Array {
  const bits = new Uint32Array(c);
  const top = planes[0] as Uint8Array;
  for (let i = 0; i < c; i++) bits[i] = (top[i] as number) << 24;
  for (let k = 1; k < 4; k++) {
    const order = stableOrder(bits, 32 - 8 * k);
    const plane = planes[k] as Uint8Array;
    const shift = 24 - 8 * k;
    for (let j = 0; j < c; j++) {
      const i = order[j] as number;
      bits[i] = ((bits[i] as number) | ((plane[j] as number) << shift)) >>> 0;
    }
  }
  return new Float32Array(bits.buffer);
}

/**
 * Indices 0..n-1 ordered by `bits[i] >>> shift`, ties by index (what numpy's argsort kind="stable"
 * gives): a least-significant-byte-first radix sort, one stable counting pass per byte of the key.
 * The result is scratch memory: read it before the next call.
 */
function stableOrder(bits: Uint32Array, shift: number): Uint32Array {
  const n = bits.length;
  let order = room("order", n, (k) => new Uint32Array(k)).subarray(0, n);
  for (let i = 0; i < n; i++) order[i] = i;
  let next = room("next", n, (k) => new Uint32Array(k)).subarray(0, n);
  const counts = byteCounts;
  for (let s = shift; s < 32; s += 8) {
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const b = ((bits[i] as number) >>> s) & 0xff;
      counts[b] = (counts[b] as number) + 1;
    }
    let at = 0;
    for (let b = 0; b < 256; b++) {
      const c = counts[b] as number;
      counts[b] = at;
      at += c;
    }
    for (let j = 0; j < n; j++) {
      const i = order[j] as number;
      const b = ((bits[i] as number) >>> s) & 0xff;
      next[counts[b] as number] = i;
      counts[b] = (counts[b] as number) + 1;
    }
    [order, next] = [next, order];
  }
  return order;
}

class Reader {
  private at = 0;
  constructor(private readonly buf: Uint8Array) {}
  byte(): number {
    if (this.at >= this.buf.length) throw new Error(`packed tokens: ends at byte ${this.at}, inside the header`);
    return this.buf[this.at++] as number;
  }
  varint(what: string): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.buf.length) throw new Error(`packed tokens: ends inside the ${what}`);
      const b = this.buf[this.at++] as number;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
      if (scale > 2 ** 35) throw new Error(`packed tokens: the ${what} runs past 6 bytes`);
    }
  }
  /** A section's bytes; `exact` when it must unpack to `size` bytes, else to at most `size`. */
  section(what: string, size: number, exact: boolean): Uint8Array {
    const h = this.varint(`${what} section's length`);
    const len = Math.floor(h / 2);
    if (len > this.left()) throw new Error(`packed tokens: the ${what} section says ${len} bytes, ${this.left()} are left`);
    const body = this.buf.subarray(this.at, this.at + len);
    this.at += len;
    let bytes: Uint8Array = body;
    if (h % 2 === 1) {
      try {
        // Bounded by what the counts allow: a block cannot unpack to more than its turn holds.
        bytes = inflateRawSync(body, { maxOutputLength: Math.max(1, size) });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
          throw new Error(`packed tokens: the ${what} section unpacks to more than its ${size} bytes`);
        throw new Error(`packed tokens: the ${what} section is not raw deflate (${(e as Error).message})`);
      }
    }
    if (exact ? bytes.length !== size : bytes.length > size)
      throw new Error(`packed tokens: the ${what} section holds ${bytes.length} bytes where the counts give ${size}`);
    return bytes;
  }
  left(): number {
    return this.buf.length - this.at;
  }
  done(): boolean {
    return this.at === this.buf.length;
  }
}

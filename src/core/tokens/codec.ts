import { endianness } from "node:os";
import type { TurnTokens } from "../schema/trajectory";
import { type TurnArrays, unpackTurn } from "./packed";
import { unpackTurnV3 } from "./packed-v3";

/**
 * Token ids and logprobs as base64 of little-endian uint32 / float32 arrays: exact, about 5.3
 * characters a value where JSON numbers take 7 (ids) to 20 (logprobs), and one call to load in numpy.
 * On a little-endian host (every one Node ships for) the typed array's bytes are the format as they are.
 */
const LITTLE = endianness() === "LE";

function toBase64(arr: Uint32Array | Float32Array, write: (buf: Buffer, v: number, at: number) => void): string {
  if (LITTLE) return Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString("base64");
  const buf = Buffer.allocUnsafe(arr.length * 4);
  for (let i = 0; i < arr.length; i++) write(buf, arr[i] as number, i * 4);
  return buf.toString("base64");
}

function fromBase64(
  b64: string,
  what: string,
  read: (buf: Buffer, at: number) => number,
  make: (ab: ArrayBuffer) => ArrayLike<number>,
): number[] {
  const buf = Buffer.from(b64, "base64");
  if (buf.length % 4 !== 0) throw new Error(`${what}: ${buf.length} bytes is not a whole number of 4-byte values`);
  if (LITTLE) {
    // A copy: Buffer.from may hand back a slice of its pool at an offset a typed array cannot start at.
    const ab = new ArrayBuffer(buf.length);
    new Uint8Array(ab).set(buf);
    return Array.from(make(ab));
  }
  const out = new Array<number>(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = read(buf, i * 4);
  return out;
}

export const encodeIds = (ids: readonly number[]): string => toBase64(Uint32Array.from(ids), (b, v, at) => b.writeUInt32LE(v, at));

export const decodeIds = (b64: string | undefined): number[] =>
  b64
    ? fromBase64(
        b64,
        "token ids (uint32)",
        (b, at) => b.readUInt32LE(at),
        (ab) => new Uint32Array(ab),
      )
    : [];

export const encodeLogprobs = (lps: readonly number[]): string => toBase64(Float32Array.from(lps), (b, v, at) => b.writeFloatLE(v, at));

export const decodeLogprobs = (b64: string | undefined): number[] =>
  b64
    ? fromBase64(
        b64,
        "logprobs (float32)",
        (b, at) => b.readFloatLE(at),
        (ab) => new Float32Array(ab),
      )
    : [];

/** The newest `encoding` this rlenv writes and reads. */
export const TOKENS_ENCODING = 3;

/**
 * A turn's arrays from its trajectory field, whichever encoding wrote it: 3 (base85 block of varint ids
 * and sorted float planes), 2 (base64 zlib block of byte planes) or none (the older three base64
 * fields). Absent capture gives empty arrays.
 */
export function readTurnTokens(t: TurnTokens): TurnArrays {
  if (t.encoding === undefined) {
    const lps = decodeLogprobs(t.logprobs);
    return { promptIds: decodeIds(t.prompt_ids), completionIds: decodeIds(t.completion_ids), ...(t.logprobs ? { logprobs: lps } : {}) };
  }
  if (t.encoding !== 2 && t.encoding !== TOKENS_ENCODING)
    throw new Error(`tokens: encoding ${t.encoding} is not one this rlenv reads (2, ${TOKENS_ENCODING}); update rlenv`);
  if (t.packed === undefined) throw new Error(`encoding ${t.encoding} without its packed field`);
  return t.encoding === 2 ? unpackTurn(t.packed) : unpackTurnV3(t.packed);
}

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { deflateRawSync } from "node:zlib";
import { decodeBase85, encodeBase85 } from "../../src/core/tokens/base85";
import { readTurnTokens, TOKENS_ENCODING } from "../../src/core/tokens/codec";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { packTurn } from "../../src/core/tokens/packed";
import { packTurnV3, unpackTurnV3 } from "../../src/core/tokens/packed-v3";
import { qwenEncode } from "../support/qwen-tokens";
import { sampledLogprobs } from "../support/sampled-logprobs";

// Real Qwen3 ids of real prose (this repository's docs), not a repeated phrase that would compress to nothing.
const docs = path.join(__dirname, "..", "..", "docs");
const qwenIds = qwenEncode(
  readdirSync(docs)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => readFileSync(path.join(docs, f), "utf8"))
    .join("\n"),
).slice(0, 6000);

const bitsOf = (xs: readonly number[]) => Array.from(new Uint32Array(Float32Array.from(xs).buffer));
/** Float32 values that every float32 reader must give back bit for bit. */
const EDGES = [
  -0,
  -Infinity,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  0,
  2.5,
  Math.fround(-1e-45),
  -3.4028234663852886e38,
  Math.fround(-1e-38),
];
const python = (() => {
  try {
    execFileSync("python3", ["-c", "import numpy"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("encoding 3: real Qwen3 ids and sampler float32 logprobs round-trip bit for bit, edge values included", () => {
  for (const [start, p, c, seed] of [
    [0, 300, 512, 7],
    [900, 130, 2048, 11],
    [3000, 0, 1, 3],
  ] as const) {
    const promptIds = qwenIds.slice(start, start + p);
    const completionIds = qwenIds.slice(start + p, start + p + c);
    const logprobs = sampledLogprobs(c, seed);
    assert.deepEqual(unpackTurnV3(packTurnV3({ promptIds, completionIds, logprobs })), { promptIds, completionIds, logprobs });
  }
  const completionIds = [0, 127, 128, 16_383, 16_384, 151_668, 2 ** 21, 2 ** 28, 2 ** 32 - 1];
  const back = unpackTurnV3(packTurnV3({ promptIds: [2 ** 32 - 1, 0], completionIds, logprobs: EDGES }));
  assert.deepEqual(back.promptIds, [2 ** 32 - 1, 0]);
  assert.deepEqual(back.completionIds, completionIds);
  assert.deepEqual(bitsOf(back.logprobs!), bitsOf(EDGES));
  assert.ok(Object.is(back.logprobs![0], -0), "negative zero keeps its sign");
  assert.deepEqual(unpackTurnV3(packTurnV3({ promptIds: [], completionIds: [] })), { promptIds: [], completionIds: [] });
  assert.deepEqual(unpackTurnV3(packTurnV3({ promptIds: [5], completionIds: [], logprobs: [] })), {
    promptIds: [5],
    completionIds: [],
    logprobs: [],
  });
  assert.throws(() => packTurnV3({ promptIds: [1.5], completionIds: [] }), /token id 1.5/);
  assert.throws(() => packTurnV3({ promptIds: [2 ** 32], completionIds: [] }), /token id 4294967296/);
  assert.throws(() => packTurnV3({ promptIds: [], completionIds: [1, 2], logprobs: [0] }), /1 logprobs for 2 completion ids/);
});

test("encoding 3: turns packed one after another, large then small, with reads between, give the same blocks as packed alone", () => {
  const turn = (at: number, p: number, c: number, seed: number) => ({
    promptIds: qwenIds.slice(at, at + p),
    completionIds: qwenIds.slice(at + p, at + p + c),
    logprobs: sampledLogprobs(c, seed),
  });
  const small = turn(10, 7, 9, 1);
  const alone = packTurnV3(small);
  const big = turn(100, 3000, 2048, 2);
  const bigBlock = packTurnV3(big);
  assert.equal(packTurnV3(small), alone, "the working memory of a larger turn leaves nothing in a smaller one");
  assert.equal(packTurnV3({ promptIds: [], completionIds: [] }), packTurnV3({ promptIds: [], completionIds: [] }));
  const back = unpackTurnV3(bigBlock);
  assert.equal(packTurnV3(small), alone, "nor does a read");
  assert.deepEqual(back.promptIds, big.promptIds);
  assert.deepEqual(back.completionIds, big.completionIds);
  assert.deepEqual(bitsOf(back.logprobs!), bitsOf(big.logprobs));
  assert.deepEqual(bitsOf(unpackTurnV3(alone).logprobs!), bitsOf(small.logprobs));
  // A turn past what is kept between calls (its arrays are the call's own) round-trips too, and leaves the small one alone.
  const cycled = (n: number, from: number) => Array.from({ length: n }, (_, i) => qwenIds[(from + i) % qwenIds.length]!);
  const huge = { promptIds: cycled(200_000, 0), completionIds: cycled(300_000, 7), logprobs: sampledLogprobs(300_000, 3) };
  const hugeBack = unpackTurnV3(packTurnV3(huge));
  assert.ok(
    hugeBack.promptIds.every((id, i) => id === huge.promptIds[i]) && hugeBack.completionIds.every((id, i) => id === huge.completionIds[i]),
  );
  assert.deepEqual(bitsOf(hugeBack.logprobs!), bitsOf(huge.logprobs));
  assert.equal(packTurnV3(small), alone);
});

test("encoding 3: a 512-token turn with sampler logprobs takes at least 10% fewer characters than encoding 2", () => {
  let v2 = 0;
  let v3 = 0;
  for (let t = 0; t < 5; t++) {
    const turn = { promptIds: qwenIds.slice(t * 700, t * 700 + 120), completionIds: qwenIds.slice(t * 700 + 120, t * 700 + 632) };
    const logprobs = sampledLogprobs(512, t + 1);
    v2 += packTurn({ ...turn, logprobs }).length;
    v3 += packTurnV3({ ...turn, logprobs }).length;
  }
  assert.ok(v3 < 0.9 * v2, `encoding 3 ${v3} characters, encoding 2 ${v2}`);
});

test("base85 writes what Python's base64.b85encode writes and reads it back; a damaged text is an error", (t) => {
  const samples = Array.from({ length: 10 }, (_, n) => Uint8Array.from({ length: n }, (_, i) => (i * 97 + 255 - n) & 255));
  samples.push(Uint8Array.of(255, 255, 255, 255, 255, 255, 255), Uint8Array.of(0, 0, 0, 0, 0));
  for (const s of samples) assert.deepEqual(decodeBase85(encodeBase85(s)), s);
  assert.throws(() => decodeBase85("abcdef"), /6 characters/);
  assert.throws(() => decodeBase85('ab"cd'), /character "\\"" at 2/);
  assert.throws(() => decodeBase85("~~~~~"), /larger than 4 bytes/);
  if (!python) return t.skip("python3 with numpy is not installed");
  const hex = samples.map((s) => Buffer.from(s).toString("hex"));
  const script = `import base64, json\nprint(json.dumps([base64.b85encode(bytes.fromhex(h)).decode() for h in ${JSON.stringify(hex)}]))`;
  assert.deepEqual(JSON.parse(execFileSync("python3", ["-c", script], { encoding: "utf8" })), samples.map(encodeBase85));
});

test("encoding 3: a damaged block is an error that says what is wrong, never other ids", () => {
  const good = decodeBase85(packTurnV3({ promptIds: [1, 2], completionIds: [300], logprobs: [-0.5] }));
  assert.throws(() => unpackTurnV3("not base85!"), /base85/);
  assert.throws(() => unpackTurnV3(encodeBase85(good.subarray(0, good.length - 1))), /logprob byte 0 section/);
  assert.throws(() => unpackTurnV3(encodeBase85(Buffer.concat([good, Uint8Array.of(0)]))), /1 bytes after the last section/);
  const future = Uint8Array.from(good);
  future[0] = 4;
  assert.throws(() => unpackTurnV3(encodeBase85(future)), /layout 4/);
  // A header that claims more ids than the section holds, and a section that unpacks past what the counts allow.
  const short = Uint8Array.from(good);
  short[2] = 5;
  assert.throws(() => unpackTurnV3(encodeBase85(short)), /ids section ends inside id 3 of 6/);
  const bomb = deflateRawSync(Buffer.alloc(2 ** 20, 1));
  const hostile = Buffer.concat([Uint8Array.of(3, 0, 1, 0), varint(bomb.length * 2 + 1), bomb]);
  assert.throws(() => unpackTurnV3(encodeBase85(hostile)), /ids section unpacks to more than its 5 bytes/);
  const huge = Buffer.concat([Uint8Array.of(3, 0), varint(2 ** 30), varint(0), varint(0)]);
  assert.throws(() => unpackTurnV3(encodeBase85(huge)), /more than any turn holds/);
});

test("ledger writes encoding 3, and a trajectory line of encoding 2 still reads", () => {
  const l = new TokenLedger();
  const t0 = l.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [10, 11], logprobs: [-0.25, -1.5] });
  assert.equal(TOKENS_ENCODING, 3);
  assert.equal(t0.encoding, 3);
  assert.deepEqual(readTurnTokens(t0), { promptIds: [1, 2, 3], completionIds: [10, 11], logprobs: [-0.25, -1.5] });
  const old = { capture: "server" as const, encoding: 2, packed: packTurn({ promptIds: [4], completionIds: [12], logprobs: [-0.5] }) };
  assert.deepEqual(readTurnTokens(old), { promptIds: [4], completionIds: [12], logprobs: [-0.5] });
});

test("encoding 3: the Python reader in docs/exports.md gives the same arrays, bit for bit", (t) => {
  const doc = readFileSync(path.join(__dirname, "..", "..", "docs", "exports.md"), "utf8");
  const reader = /```python\n(# read a turn's packed tokens \(encoding 3[\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(reader, "docs/exports.md has the encoding 3 reader");
  if (!python) return t.skip("python3 with numpy is not installed");
  const logprobs = sampledLogprobs(700, 5).concat(EDGES);
  const turns = [
    { promptIds: qwenIds.slice(100, 400), completionIds: qwenIds.slice(400, 400 + logprobs.length), logprobs },
    { promptIds: [2 ** 32 - 1, 0, 128], completionIds: [16_384, 127] },
    { promptIds: [], completionIds: [] },
  ];
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-packed3-py-"));
  writeFileSync(path.join(dir, "turns.json"), JSON.stringify(turns.map((x) => ({ packed: packTurnV3(x) }))));
  const script = `${reader}\nimport json\nfor t in json.load(open(${JSON.stringify(path.join(dir, "turns.json"))})):\n    p, c, l = turn_tokens(t)\n    print(json.dumps([p.tolist(), c.tolist(), None if l is None else l.view(np.uint32).tolist()]))\n`;
  const lines = execFileSync("python3", ["-c", script], { encoding: "utf8" }).trim().split("\n");
  assert.equal(lines.length, turns.length);
  turns.forEach((turn, i) => {
    const [p, c, l] = JSON.parse(lines[i]!) as [number[], number[], number[] | null];
    assert.deepEqual(p, turn.promptIds, `turn ${i} prompt`);
    assert.deepEqual(c, turn.completionIds, `turn ${i} completion`);
    assert.deepEqual(l, turn.logprobs ? bitsOf(turn.logprobs) : null, `turn ${i} logprobs`);
  });
});

function varint(v: number): Uint8Array {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

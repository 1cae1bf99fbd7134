import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { encodeIds, encodeLogprobs, readTurnTokens, TOKENS_ENCODING } from "../../src/core/tokens/codec";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { packTurn, unpackTurn } from "../../src/core/tokens/packed";
import { rolloutSequence } from "../../src/core/tokens/sequence";
import { qwenEncode } from "../support/qwen-tokens";
import { sampledLogprobs } from "../support/sampled-logprobs";

// Real Qwen3 ids of real prose (this repository's README), not a repeated phrase that would compress to nothing.
const readme = readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8");
const qwenIds = qwenEncode(readme).slice(0, 2048);

test("packed: real Qwen3 ids and sampler float32 logprobs round-trip exactly", () => {
  const completionIds = qwenIds.slice(300, 812);
  const logprobs = sampledLogprobs(completionIds.length, 7);
  const promptIds = qwenIds.slice(0, 300);
  assert.deepEqual(unpackTurn(packTurn({ promptIds, completionIds, logprobs })), { promptIds, completionIds, logprobs });
  assert.deepEqual(unpackTurn(packTurn({ promptIds: [], completionIds })), { promptIds: [], completionIds });
  assert.deepEqual(unpackTurn(packTurn({ promptIds: [], completionIds: [] })), { promptIds: [], completionIds: [] });
});

test("packed: every id width and the float32 edge values come back bit for bit", () => {
  for (const ids of [
    [0, 255],
    [256, 65_535],
    [65_536, 151_668],
    [2 ** 24, 2 ** 32 - 1, 0],
  ]) {
    const lps = [-0, -Infinity, Math.fround(-1e-38), -3.4028234663852886e38].slice(0, ids.length);
    const back = unpackTurn(
      packTurn({ promptIds: [ids[0]!], completionIds: ids, logprobs: [...lps, ...new Array(ids.length - lps.length).fill(0)] }),
    );
    assert.deepEqual(back.promptIds, [ids[0]]);
    assert.deepEqual(back.completionIds, ids);
    assert.ok(Object.is(back.logprobs![0], -0), "negative zero keeps its sign");
  }
  assert.throws(() => packTurn({ promptIds: [1.5], completionIds: [] }), /token id 1.5/);
  assert.throws(() => packTurn({ promptIds: [], completionIds: [1, 2], logprobs: [0] }), /1 logprobs for 2 completion ids/);
});

test("packed: a damaged block is an error that says what is wrong, never other ids", () => {
  assert.throws(() => unpackTurn("bm90IHpsaWI="), /not a zlib stream/);
  const good = Buffer.from(packTurn({ promptIds: [1, 2], completionIds: [3] }), "base64");
  const { inflateSync, deflateSync } = require("node:zlib") as typeof import("node:zlib");
  const raw = inflateSync(good);
  assert.throws(() => unpackTurn(deflateSync(raw.subarray(0, raw.length - 1)).toString("base64")), /bytes where 2 prompt and 1 completion/);
  const future = Buffer.from(raw);
  future[0] = 3;
  assert.throws(() => unpackTurn(deflateSync(future).toString("base64")), /layout 3/);
  assert.throws(() => readTurnTokens({ capture: "server", encoding: 4, packed: "" }), /encoding 4 is not one this rlenv reads/);
});

test("packed: a 512-token turn with logprobs takes under 5 KB of base64 where the separate fields took 5.4 KB", () => {
  const completionIds = qwenIds.slice(0, 512);
  const logprobs = sampledLogprobs(512, 3);
  const packed = packTurn({ promptIds: [], completionIds, logprobs }).length;
  const separate = encodeIds(completionIds).length + encodeLogprobs(logprobs).length;
  assert.equal(separate, 5464);
  assert.ok(packed < 5000, `packed ${packed} characters`);
});

test("ledger writes the newest encoding; the sequence reader reads it and the older three-field turns alike", () => {
  const l = new TokenLedger();
  const t0 = l.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [10, 11], logprobs: [-0.25, -1.5] });
  const t1 = l.record({ capture: "server", promptIds: [1, 2, 3, 10, 11, 4], completionIds: [12], logprobs: [-0.5] });
  assert.equal(t0.encoding, TOKENS_ENCODING);
  assert.equal(t0.prompt_ids, undefined);
  assert.deepEqual(readTurnTokens(t1), { promptIds: [4], completionIds: [12], logprobs: [-0.5] });
  const old = [
    {
      capture: "server" as const,
      prompt_offset: 0,
      prompt_ids: encodeIds([1, 2, 3]),
      completion_ids: encodeIds([10, 11]),
      logprobs: encodeLogprobs([-0.25, -1.5]),
    },
    {
      capture: "server" as const,
      prompt_offset: 5,
      prompt_ids: encodeIds([4]),
      completion_ids: encodeIds([12]),
      logprobs: encodeLogprobs([-0.5]),
    },
  ];
  const asEvents = (ts: unknown[]) =>
    ts.map((tokens, turn) => ({ type: "message", ts: "", role: "assistant", content: "", turn, tokens })) as unknown as Parameters<
      typeof rolloutSequence
    >[0];
  const now = rolloutSequence(asEvents([t0, t1]));
  const before = rolloutSequence(asEvents(old));
  assert.deepEqual(now, before);
  assert.deepEqual(now?.ids, [1, 2, 3, 10, 11, 4, 12]);
  assert.deepEqual(now?.logprobs, [0, 0, 0, -0.25, -1.5, 0, -0.5]);
});

test("packed: the encoding 2 Python reader in docs/exports.md gives the same arrays", (t) => {
  const doc = readFileSync(path.join(__dirname, "..", "..", "docs", "exports.md"), "utf8");
  const reader = /```python\n(# read a turn's packed tokens, encoding 2[\s\S]*?)```/
    .exec(doc)?.[1]
    ?.replace("def turn_tokens_v2", "def turn_tokens");
  assert.ok(reader, "docs/exports.md has the encoding 2 reader");
  try {
    execFileSync("python3", ["-c", "import numpy"], { stdio: "ignore" });
  } catch {
    return t.skip("python3 with numpy is not installed");
  }
  const completionIds = qwenIds.slice(0, 100);
  const logprobs = sampledLogprobs(100, 5);
  const tokens = { packed: packTurn({ promptIds: qwenIds.slice(100, 130), completionIds, logprobs }) };
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-packed-py-"));
  writeFileSync(path.join(dir, "turn.json"), JSON.stringify(tokens));
  const script = `${reader}\nimport json\nt = json.load(open(${JSON.stringify(path.join(dir, "turn.json"))}))\np, c, l = turn_tokens(t)\nprint(json.dumps([p.tolist(), c.tolist(), l.tolist()]))\n`;
  const [p, c, l] = JSON.parse(execFileSync("python3", ["-c", script], { encoding: "utf8" })) as number[][];
  assert.deepEqual(p, qwenIds.slice(100, 130));
  assert.deepEqual(c, completionIds);
  assert.deepEqual(l, logprobs);
});

test("packed: a block that unpacks past any turn's size is refused before it fills the memory; encoding 2 needs its field", () => {
  const { deflateSync } = require("node:zlib") as typeof import("node:zlib");
  const bomb = deflateSync(Buffer.alloc(129 * 2 ** 20), { level: 1 }).toString("base64");
  assert.throws(() => unpackTurn(bomb), /unpacks to more than 128 MiB/);
  assert.throws(() => readTurnTokens({ capture: "server", encoding: 2 }), /encoding 2 without its packed field/);
});

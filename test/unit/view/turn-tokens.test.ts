import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rewrittenFrom } from "../../../src/core/view/model/turn-tokens";
import type { TurnTokenWindow } from "../../../src/core/view/protocol/tokens";
import { ViewService } from "../../../src/core/view/server/view-service";
import { writeTokenRollout } from "../../support/token-rollout";

const f32 = (x: number) => Math.fround(x);

async function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-turn-tokens-"));
  const plan = writeTokenRollout(dir);
  const svc = new ViewService(dir);
  const rel = path.relative(dir, plan.file);
  const rows = (await svc.handle("rows", { file: rel, from: 0, to: 50 })) as Array<{ index: number; kind: string }>;
  const turnRows = rows.filter((r) => r.kind === "turn").map((r) => r.index);
  const tokens = (row: number, from = 0, limit = 2000) =>
    svc.handle("tokens", { file: rel, row, from, limit }) as Promise<TurnTokenWindow[]>;
  return { plan, turnRows, tokens };
}

test("tokens: a turn's stored prompt then its sampled tokens, logprobs exactly as written, positions in the sequence", async () => {
  const { plan, turnRows, tokens } = await setup();
  const [w] = await tokens(turnRows[0]!);
  assert.ok(w);
  const t = plan.turns[0]!;
  assert.equal(w.capture, "server");
  assert.equal(w.model, "qwen3-test");
  assert.equal(w.offset, 0);
  assert.equal(w.prompt, t.prompt.length);
  assert.equal(w.completion, 6);
  assert.deepEqual(w.ids, [...t.prompt, ...t.completion]);
  // Prompt tokens carry no logprob; sampled ones carry the float32 the server sent.
  assert.deepEqual(w.logprobs, [...t.prompt.map(() => null), ...t.logprobs!.map(f32)]);
  assert.equal(w.rewritten_from, null);
  assert.equal(w.logprob_stats?.min, f32(-6));
  assert.equal(w.has_logprobs, true);
});

test("tokens: a long turn comes a window at a time; the windows join to the whole turn", async () => {
  const { plan, turnRows, tokens } = await setup();
  const t = plan.turns[1]!;
  const total = t.prompt.length + t.completion.length;
  const ids: number[] = [];
  for (let from = 0; from < total; from += 2000) {
    const [w] = await tokens(turnRows[1]!, from, 2000);
    assert.equal(w!.from, from);
    assert.ok(w!.ids.length <= 2000);
    ids.push(...w!.ids);
  }
  assert.deepEqual(ids, [...t.prompt, ...t.completion]);
  assert.equal(t.prompt.length, 3, "the tool result's glue is the only new prompt");
  const [first] = await tokens(turnRows[1]!, 0, 10);
  assert.equal(first!.offset, 18);
});

test("tokens: sampled tokens a later drifting turn rewrote are marked from the drift position on", async () => {
  const { plan, turnRows, tokens } = await setup();
  const [w] = await tokens(turnRows[1]!, 0, 10);
  assert.equal(w!.rewritten_from, plan.driftAt);
  const [drifted] = await tokens(turnRows[2]!);
  assert.equal(drifted!.drift_at, plan.driftAt);
  assert.equal(drifted!.offset, plan.driftAt);
  assert.equal(drifted!.rewritten_from, null);
  // The first turn ends before the drift: all of it stays.
  const [first] = await tokens(turnRows[0]!);
  assert.equal(first!.rewritten_from, null);
});

test("tokens: a turn whose server returned none says capture absent; a step without an assistant turn has none", async () => {
  const { turnRows, tokens } = await setup();
  const [absent] = await tokens(turnRows[3]!);
  assert.equal(absent!.capture, "absent");
  assert.deepEqual(absent!.ids, []);
  assert.deepEqual(await tokens(0), []);
});

test("rewrittenFrom: the lowest later offset inside the turn", () => {
  assert.equal(rewrittenFrom(100, [120, 150]), null);
  assert.equal(rewrittenFrom(100, [120, 90, 95]), 90);
  assert.equal(rewrittenFrom(100, []), null);
  assert.equal(rewrittenFrom(100, [100]), null);
});

test("tokens: a run whose tokenizer folder is here shows each token's text piece (decoded alone), else ids", async () => {
  const { QWEN3_DIR, qwenDecode, qwenEncode } = await import("../../support/qwen-tokens");
  const { tokenPiecesForRollout } = await import("../../../src/core/view/server/token-text");
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-turn-text-"));
  const plan = writeTokenRollout(dir, 50);
  const rel = path.relative(dir, plan.file);
  const record = {
    id: "tok",
    created: "2026-01-01T00:00:00Z",
    status: "completed",
    env: { name: "tok-env", hash: "h", domain: "custom", path: "/e" },
    config: { policy: { kind: "openai", model: "qwen3", tokens: true, tokenizer: QWEN3_DIR }, k: 1 },
  };
  const { writeFileSync } = await import("node:fs");
  const svc = new ViewService(dir, { tokenPieces: tokenPiecesForRollout });
  // No run.json yet: ids only.
  const [before] = (await svc.handle("tokens", { file: rel, row: 1 })) as TurnTokenWindow[];
  assert.equal(before!.text, null);
  writeFileSync(path.join(dir, "run.json"), JSON.stringify(record));
  const [w] = (await svc.handle("tokens", { file: rel, row: 1 })) as TurnTokenWindow[];
  assert.deepEqual(
    w!.text,
    w!.ids.map((id) => qwenDecode([id])),
  );
  // A real word splits into the pieces Qwen3 samples it as.
  const ids = qwenEncode(" tokenisation");
  assert.equal(tokenPiecesForRollout(plan.file)!(ids).join(""), " tokenisation");
  // A run without a tokenizer folder (chat mode) has no pieces.
  writeFileSync(path.join(dir, "run.json"), JSON.stringify({ ...record, config: { policy: { kind: "openai" }, k: 1 } }));
  assert.equal(tokenPiecesForRollout(plan.file), null);
});

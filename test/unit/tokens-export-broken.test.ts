import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { exportRlRecords } from "../../src/core/runs/export-rl";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { rlenv } from "../support/cli";
import { startEvent, writeRunFolder } from "../support/run-folder";

/** A run of two token rollouts; `damage` spoils the second one's packed field. */
function tokenRun(damage: boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-export-broken-"));
  writeRunFolder(dir, { ended: "2026-01-01T00:01:00Z", config: { policy: { kind: "openai", model: "m" }, k: 2 } });
  for (const i of [0, 1]) {
    const ledger = new TokenLedger();
    const tokens = ledger.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [40 + i, 50], logprobs: [-0.5, -0.25] });
    if (damage && i === 1) tokens.packed = `${tokens.packed?.slice(0, 12)}AAAA`;
    const events = [
      startEvent({ rollout_id: `x${i}`, policy: { kind: "openai", model: "m" }, sample: i }),
      { type: "message", role: "assistant", content: "a", turn: 0, tokens },
      {
        type: "end",
        status: "completed",
        reward: i,
        turns: 1,
        usage: {},
        timings: { total_ms: 1, policy_ms: 1, sandbox_ms: 0, verify_ms: 0 },
        tokens: ledger.summary(),
      },
    ];
    writeFileSync(
      path.join(dir, "rollouts", `x${i}.jsonl`),
      `${events.map((e, seq) => JSON.stringify({ seq, t: 1000 + seq, ...e })).join("\n")}\n`,
    );
  }
  return dir;
}

test("rl export: a rollout whose token field is damaged is left out, named with its file, line and field; the others export", () => {
  const good = exportRlRecords(tokenRun(false));
  assert.equal(good.records.length, 2);
  assert.deepEqual(good.broken, []);
  const run = tokenRun(true);
  const { records, broken } = exportRlRecords(run);
  assert.deepEqual(
    records.map((r) => [r.rollout_id, r.input_ids]),
    [["x0", [1, 2, 3, 40, 50]]],
  );
  // The group statistics still count the damaged rollout's reward: only its tokens are unreadable.
  assert.equal(records[0]?.group_size, 2);
  assert.equal(broken.length, 1);
  assert.match(
    broken[0]!,
    new RegExp(`^${path.join(run, "rollouts", "x1.jsonl").replace(/[.\\/]/g, "\\$&")}: line 2 \\(turn 0\\), field tokens: packed tokens: `),
  );
  const cli = rlenv(["export", run, "--format", "rl-jsonl"]);
  assert.equal(cli.code, 1);
  assert.equal(cli.stdout.trim().split("\n").length, 1);
  assert.match(cli.stderr, /x1\.jsonl: line 2 \(turn 0\), field tokens: packed tokens/);
  assert.match(cli.stderr, /exported 1 rollout; 1 left out: their token fields do not read back/);
});

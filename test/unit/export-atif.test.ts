// `rlenv export RUN --format atif`: the captured tokens in ATIF's metrics fields, the rollouts
// every other format exports (no cancelled, infrastructure-failed or unfinished ones), and
// `--out` a file as for every format (`--out-dir` for one file per rollout).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { AtifWithTokens } from "../../src/core/harbor/export-atif";
import { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { TokenLedger } from "../../src/core/tokens/ledger";
import { rlenv } from "../support/cli";
import { startEvent, writeRunFolder } from "../support/run-folder";

const END = { type: "end", reward: 1, turns: 2, usage: {}, timings: { total_ms: 1, policy_ms: 1, sandbox_ms: 0, verify_ms: 0 } };
const LP0 = [-0.5, -0.25];
const LP1 = [-0.125];

/** Writes one rollout's events (each parsed by the real schema) as rollouts/<id>.jsonl. */
function writeRollout(dir: string, id: string, events: object[]): void {
  const lines = events.map((e, seq) => JSON.stringify(TrajectoryEvent.parse({ seq, t: 1000 + seq, ...e })));
  writeFileSync(path.join(dir, "rollouts", `${id}.jsonl`), `${lines.join("\n")}\n`);
}

/**
 * A run of five rollouts: `tokens` (two captured turns: the second's prompt holds the first
 * prompt + completion, stored from its offset on), `plain` (a server without capture),
 * `cancelled`, `infra` (the sandbox was lost) and `unfinished` (no end event).
 */
function atifRun(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-export-atif-"));
  writeRunFolder(dir, { ended: "2026-01-01T00:01:00Z", config: { policy: { kind: "openai", model: "m" }, k: 1 } });
  const ledger = new TokenLedger();
  const turn0 = ledger.record({ capture: "server", promptIds: [1, 2, 3], completionIds: [40, 50], logprobs: LP0 });
  const turn1 = ledger.record({ capture: "server", promptIds: [1, 2, 3, 40, 50, 7, 8], completionIds: [60], logprobs: LP1 });
  const start = (id: string) => startEvent({ rollout_id: id, task: { id, prompt: "p" }, policy: { kind: "openai", model: "m" } });
  const user = { type: "message", role: "user", content: "p" };
  writeRollout(dir, "tokens", [
    start("tokens"),
    user,
    { type: "message", role: "assistant", content: "a", turn: 0, tokens: turn0, usage: { prompt_tokens: 3, completion_tokens: 2 } },
    { type: "message", role: "assistant", content: "b", turn: 1, tokens: turn1 },
    { ...END, status: "completed", tokens: ledger.summary() },
  ]);
  writeRollout(dir, "plain", [
    start("plain"),
    user,
    { type: "message", role: "assistant", content: "a", turn: 0, tokens: { capture: "absent" } },
    { ...END, status: "completed" },
  ]);
  writeRollout(dir, "cancelled", [start("cancelled"), user, { ...END, status: "cancelled", reward: null }]);
  writeRollout(dir, "infra", [
    start("infra"),
    user,
    { type: "error", where: "sandbox", message: "sandbox lost", infra: true },
    { ...END, status: "error", reward: null },
  ]);
  writeRollout(dir, "unfinished", [start("unfinished"), user]);
  return dir;
}

const float32 = (xs: number[]) => Array.from(Float32Array.from(xs));

test("atif: each agent step carries its prompt's ids (history included), the sampled ids and their logprobs", () => {
  const run = atifRun();
  const r = rlenv(["export", run, "--format", "atif"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AtifWithTokens);
  // Only the two scored rollouts: not the cancelled, infrastructure-failed or unfinished ones.
  assert.deepEqual(rows.map((a) => a.session_id).sort(), ["plain", "tokens"]);
  assert.match(r.stderr, /exported 2 rollouts as ATIF/);
  const agent = rows.find((a) => a.session_id === "tokens")?.steps.filter((s) => s.source === "agent") ?? [];
  assert.deepEqual(
    agent.map((s) => s.metrics),
    [
      { prompt_tokens: 3, completion_tokens: 2, prompt_token_ids: [1, 2, 3], completion_token_ids: [40, 50], logprobs: float32(LP0) },
      // No usage reported: the counts are the lists' lengths, as ATIF asks.
      {
        prompt_tokens: 7,
        completion_tokens: 1,
        prompt_token_ids: [1, 2, 3, 40, 50, 7, 8],
        completion_token_ids: [60],
        logprobs: float32(LP1),
      },
    ],
  );
  const plain = rows.find((a) => a.session_id === "plain")?.steps.filter((s) => s.source === "agent") ?? [];
  assert.deepEqual(
    plain.map((s) => s.metrics),
    [undefined],
    "a turn without capture has no token fields",
  );
});

test("atif: --out is a file (one trajectory per line, as on stdout); --out-dir one <rollout>.json each; --out on a folder is refused", () => {
  const run = atifRun();
  const out = mkdtempSync(path.join(tmpdir(), "rlenv-export-atif-out-"));
  const stdout = rlenv(["export", run, "--format", "atif"]).stdout;
  const file = path.join(out, "run.atif.jsonl");
  const toFile = rlenv(["export", run, "--format", "atif", "--out", file]);
  assert.equal(toFile.code, 0, toFile.stderr);
  assert.equal(readFileSync(file, "utf8"), stdout);
  const folder = path.join(out, "atif");
  const toDir = rlenv(["export", run, "--format", "atif", "--out-dir", folder]);
  assert.equal(toDir.code, 0, toDir.stderr);
  assert.deepEqual(readdirSync(folder).sort(), ["plain.json", "tokens.json"]);
  const one = JSON.parse(readFileSync(path.join(folder, "tokens.json"), "utf8")) as AtifWithTokens;
  assert.deepEqual(one.steps.at(-1)?.metrics?.completion_token_ids, [60]);
  mkdirSync(path.join(out, "a-folder"));
  for (const format of ["atif", "chat-jsonl"]) {
    const refused = rlenv(["export", run, "--format", format, "--out", path.join(out, "a-folder")]);
    assert.equal(refused.code, 2, `${format}: ${refused.stderr}`);
    assert.match(refused.stderr, /--out names the file to write; .*a-folder is a folder/);
  }
  const wrongFormat = rlenv(["export", run, "--format", "trl", "--out-dir", folder]);
  assert.equal(wrongFormat.code, 2);
  assert.match(wrongFormat.stderr, /--out-dir is for --format atif/);
});

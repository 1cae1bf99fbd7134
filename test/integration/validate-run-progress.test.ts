// `rlenv validate --run` says what it is doing while a document corpus is parsed, as `run` and
// `index` do (it was silent for minutes on a large corpus).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";

test("validate --run prints the corpus's parse progress on stderr, once, then the verdicts", () => {
  const cache = mkdtempSync(path.join(tmpdir(), "rlenv-validate-progress-"));
  const env = path.resolve(import.meta.dirname, "../../environments/document-contract-review");
  const r = rlenv(["validate", env, "--run", "--sandbox", "process"], { env: { RLENV_CACHE_DIR: cache }, timeoutMs: 300_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /document-contract-review: documents: parsing 14 files\n/);
  assert.match(r.stderr, /document-contract-review: documents: 14\/14 parsed/);
  assert.equal(r.stderr.match(/parsing 14 files/g)?.length, 1, "the oracle's and nop's runs share one corpus: its progress is shown once");
  assert.match(r.stdout, /✓ document-contract-review: 7 tasks validated/);
  const json = rlenv(["validate", env, "--run", "--sandbox", "process", "--json"], { env: { RLENV_CACHE_DIR: cache }, timeoutMs: 300_000 });
  assert.doesNotMatch(json.stderr, /parsed/, "--json keeps stderr for problems");
});

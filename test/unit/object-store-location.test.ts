import assert from "node:assert/strict";
import { test } from "node:test";
import { formatS3Url, isS3Url, keyUnder, parseS3Url } from "../../src/core/runs/object-store/location";
import { runsTarget } from "../../src/cli/commands/runs-target";

test("s3:// URLs: bucket and prefix, slashes trimmed; bad buckets and dot segments refused with the URL named", () => {
  assert.deepEqual(parseS3Url("s3://rl-runs"), { bucket: "rl-runs", prefix: "" });
  assert.deepEqual(parseS3Url("s3://rl-runs/"), { bucket: "rl-runs", prefix: "" });
  assert.deepEqual(parseS3Url("s3://rl-runs//team/a/"), { bucket: "rl-runs", prefix: "team/a" });
  assert.equal(formatS3Url(parseS3Url("s3://rl-runs/team/a")), "s3://rl-runs/team/a");
  assert.equal(keyUnder("", "run.json"), "run.json");
  assert.equal(keyUnder("team/a", "rollouts/x.jsonl"), "team/a/rollouts/x.jsonl");
  for (const bad of ["s3://", "s3:///x", "s3://Upper/x", "s3://a/x", "s3://bad_bucket/x", "s3://rl-runs/a/../b", "s3://rl-runs/./b"])
    assert.throws(
      () => parseS3Url(bad),
      (e: Error) => e.message.startsWith(`${bad}:`),
      bad,
    );
  assert.equal(isS3Url("s3://b/x"), true);
  assert.equal(isS3Url("runs"), false);
});

test("--runs: a local folder as it is; an s3:// URL stages locally under RLENV_S3_STAGING, one folder per bucket and prefix", () => {
  const local = runsTarget("runs");
  assert.equal(local.store, undefined);
  assert.ok(local.localDir.endsWith("/runs"));
  const prev = process.env.RLENV_S3_STAGING;
  process.env.RLENV_S3_STAGING = "/tmp/staging-test";
  try {
    const a = runsTarget("s3://rl-runs/team/a");
    const b = runsTarget("s3://rl-runs/team/b");
    assert.deepEqual(a.store, { bucket: "rl-runs", prefix: "team/a" });
    assert.ok(a.localDir.startsWith("/tmp/staging-test/"));
    assert.notEqual(a.localDir, b.localDir);
    assert.equal(runsTarget("s3://rl-runs/team/a/").localDir, a.localDir);
    assert.throws(() => runsTarget("s3://Bad/x"), /not a valid bucket name/);
  } finally {
    if (prev === undefined) delete process.env.RLENV_S3_STAGING;
    else process.env.RLENV_S3_STAGING = prev;
  }
});

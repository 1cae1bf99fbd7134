// Harbor's task.toml read as Harbor reads it (schema 1.0 to 1.3), warnings and errors at the
// field's line; reward files read as Harbor's verifier reads them; base images replaced by stand-ins.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { listRecipes } from "../../src/core/sandbox/image/recipe";
import { BUILTIN_STAND_INS, dockerfileWorkdir, standInTable, substituteBases } from "../../src/core/sandbox/image/base-images";
import { parseRewards } from "../../src/core/reward/harbor/rewards";
import { parseTaskConfig, sizeToMb } from "../../src/core/harbor/task-config";

const TB2 = `version = "1.0"

[metadata]
author_name = "A"
difficulty = "hard"
tags = [ "async",]

[verifier]
timeout_sec = 900.0

[agent]
timeout_sec = 120.0

[environment]
build_timeout_sec = 600.0
docker_image = "alexgshaw/x:20251031"
cpus = 2
memory = "2G"
storage = "10G"
`;

test("a TB 2.0 task.toml (schema 1.0): timeouts, cpus, memory; docker_image and storage warned at their lines", () => {
  const { config, problems } = parseTaskConfig("/t/task.toml", TB2);
  assert.ok(config);
  assert.equal(config.schemaVersion, "1.0");
  assert.equal(config.verifierTimeoutSec, 900);
  assert.equal(config.agentTimeoutSec, 120);
  assert.equal(config.cpus, 2);
  assert.equal(config.memoryMb, 2048);
  assert.equal(config.storageMb, 10240);
  assert.equal(config.dockerImage, "alexgshaw/x:20251031");
  assert.deepEqual(config.metadata.tags, ["async"]);
  assert.equal(problems.filter((p) => p.severity === "error").length, 0);
  const image = problems.find((p) => p.path === "environment.docker_image");
  assert.equal(image?.line, 16);
  assert.equal(image?.severity, "warning");
  assert.equal(problems.find((p) => p.path === "environment.storage")?.line, 19);
});

test("schema 1.3: schema_version, [task], memory_mb, env tables, no agent timeout; unknown fields are warnings, wrong types errors", () => {
  const text = [
    'schema_version = "1.3"',
    "",
    "[task]",
    'name = "org/thing"',
    'keywords = ["k"]',
    "",
    "[agent]",
    "",
    "[verifier]",
    'timeout_sec = "soon"',
    'env = { TOKEN = "x", N = 3 }',
    "",
    "[solution]",
    'env = { S = "y" }',
    "",
    "[environment]",
    "memory_mb = 4096",
    "cpus = 1",
    "colour = 3",
    "",
  ].join("\n");
  const { config, problems } = parseTaskConfig("/t/task.toml", text);
  assert.ok(config);
  assert.equal(config.schemaVersion, "1.3");
  assert.equal(config.name, "org/thing");
  assert.equal(config.agentTimeoutSec, null, "1.1+ has no agent timeout by default");
  assert.equal(config.memoryMb, 4096);
  assert.deepEqual(config.verifierEnv, { TOKEN: "x", N: "3" });
  assert.deepEqual(config.solutionEnv, { S: "y" });
  const bad = problems.find((p) => p.path === "verifier.timeout_sec");
  assert.equal(bad?.severity, "error");
  assert.equal(bad?.line, 10);
  const unknown = problems.find((p) => p.path === "environment.colour");
  assert.equal(unknown?.severity, "warning");
  assert.equal(unknown?.line, 19);
  assert.match(unknown?.message ?? "", /unknown field 'colour'/);
});

test("broken TOML is one error at its line; [[steps]] are read with their gates", () => {
  const broken = parseTaskConfig("/t/task.toml", 'version = "1.0"\n[agent\ntimeout_sec = 1\n');
  assert.equal(broken.config, null);
  assert.equal(broken.problems[0]?.severity, "error");
  assert.equal(broken.problems[0]?.line, 2);
  const steps = parseTaskConfig("/t/task.toml", 'schema_version = "1.2"\n[[steps]]\nname = "a"\nmin_reward = 1.0\n[[steps]]\nname = "b"\n');
  assert.deepEqual(
    steps.config?.steps.map((s) => [s.name, s.minReward]),
    [
      ["a", 1],
      ["b", undefined],
    ],
  );
});

test("sizes: Harbor's memory strings in megabytes", () => {
  assert.equal(sizeToMb("2G"), 2048);
  assert.equal(sizeToMb("512M"), 512);
  assert.equal(sizeToMb("1.5g"), 1536);
  assert.equal(sizeToMb("lots"), null);
});

test("rewards: reward.json first with every numeric key, reward.txt a single number, neither an error", () => {
  assert.deepEqual(parseRewards('{"correctness": 1, "performance": 0, "note": "x", "ok": true}', undefined), {
    ok: true,
    values: { correctness: 1, performance: 0 },
  });
  assert.deepEqual(parseRewards('{"a": 0.5}', "1\n"), { ok: true, values: { a: 0.5, reward: 1 } });
  assert.deepEqual(parseRewards('{"reward": 0.25}', "1\n"), { ok: true, values: { reward: 0.25 } });
  assert.deepEqual(parseRewards(undefined, "0\n"), { ok: true, values: { reward: 0 } });
  assert.deepEqual(parseRewards(undefined, " 0.75 "), { ok: true, values: { reward: 0.75 } });
  const none = parseRewards(undefined, undefined);
  assert.equal(none.ok, false);
  assert.match(none.ok ? "" : none.message, /neither .*reward\.json nor .*reward\.txt/);
  assert.equal(parseRewards(undefined, "passed").ok, false);
  // Not a reward: a number too large to be finite (clamped, it read as a full reward), NaN, inf.
  for (const txt of ["1e999", "-1e999", "NaN", "inf", ""]) assert.equal(parseRewards(undefined, txt).ok, false, txt);
  assert.deepEqual(parseRewards('{"a": 1e999}', "1e999"), { ok: false, message: "/logs/verifier/reward.json holds no numeric reward" });
  assert.deepEqual(parseRewards(undefined, "\uFEFF1\r\n"), { ok: true, values: { reward: 1 } });
  assert.equal(parseRewards("[1]", undefined).ok, false);
});

test("base images: ubuntu and python:*-slim get stand-ins, stages and unknown images are left, WORKDIR is the last stage's", () => {
  const df =
    "FROM ubuntu:24.04 AS build\nRUN true\nFROM python:3.13-slim-bookworm\nCOPY --from=build /x /x\nFROM build\nFROM ghcr.io/acme/tool:1\n";
  const s = substituteBases(df, BUILTIN_STAND_INS);
  assert.deepEqual(
    s.substitutions.map((x) => [x.image, x.standIn.name]),
    [
      ["ubuntu:24.04", "ubuntu"],
      ["python:3.13-slim-bookworm", "python"],
    ],
  );
  assert.deepEqual(s.unknown, ["ghcr.io/acme/tool:1"]);
  assert.match(s.text, /^FROM rlenv\/standin-ubuntu:[0-9a-f]{12} AS build$/m);
  assert.match(s.text, /^FROM build$/m);
  assert.equal(
    substituteBases("FROM docker.io/library/debian:bookworm-slim\n", BUILTIN_STAND_INS).substitutions[0]?.standIn.name,
    "debian",
  );
  assert.equal(dockerfileWorkdir("FROM a\nWORKDIR /app\nWORKDIR src\n"), "/app/src");
  assert.equal(dockerfileWorkdir("FROM a\nWORKDIR /app\nFROM b\n"), null);
});

test("base images are stood in by their own Debian release: 13 (trixie) on rlenv/python:trixie, 12 on bookworm", () => {
  const standIn = (image: string) => substituteBases(`FROM ${image}\n`, BUILTIN_STAND_INS).substitutions[0]?.standIn;
  for (const image of ["debian:13", "debian:13-slim", "debian:trixie-slim", "debian:stable", "python:3.13-slim", "python:3.12-trixie"])
    assert.equal(standIn(image)?.from, "rlenv/python:trixie", image);
  for (const image of ["debian:12", "debian:bookworm-slim", "python:3.13-slim-bookworm", "ubuntu:24.04"])
    assert.equal(standIn(image)?.from ?? "rlenv/python:bookworm", "rlenv/python:bookworm", image);
  assert.match(standIn("debian:13")?.note ?? "", /Debian 13 \(trixie\)/);
  // A release with no stand-in of its own says so, not just "Debian 12".
  assert.match(standIn("debian:11")?.note ?? "", /not the release the tag names/);
  // The trixie root is a shipped recipe, so a missing one is built (debootstrap) as the bookworm one is.
  assert.ok(listRecipes().some((r) => r.tag === "rlenv/python:trixie" && r.suite === "trixie"));
});

test("the stand-in table: a user's entries come first; a broken file is an error naming it", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-standins-"));
  try {
    const file = path.join(dir, "base-images.json");
    writeFileSync(file, JSON.stringify([{ match: "ubuntu:24.04", name: "myubuntu", lines: ["RUN true"], note: "mine" }]));
    const table = standInTable(file);
    assert.equal(substituteBases("FROM ubuntu:24.04\n", table).substitutions[0]?.standIn.name, "myubuntu");
    assert.equal(substituteBases("FROM ubuntu:22.04\n", table).substitutions[0]?.standIn.name, "ubuntu");
    writeFileSync(file, "{");
    assert.throws(() => standInTable(file), new RegExp(`${file}: not valid JSON`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

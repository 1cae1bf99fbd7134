import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { baseImages, buildContext } from "../../src/core/sandbox/image/context";
import { listRecipes } from "../../src/core/sandbox/image/recipe";
import { buildCommandFor } from "../../src/core/sandbox/image/ensure";
import { imageNeed, processDifference, STOCK_IMAGES } from "../../src/core/sandbox/image/stand-in";
import { builtImageTag } from "../../src/core/sandbox/request";
import { makeEnvDir } from "../support/tmp-env";

const manifest = (sandbox: string) =>
  `name: hash-demo\ndomain: code\ndescription: first\ntasks: tasks.jsonl\nreward:\n  - type: exact\nsandbox:\n  ${sandbox}\n`;
const task = (meta: string) => `{"id": "t1", "prompt": "p", "metadata": {"note": "${meta}"}}\n`;

function load(dir: string): Environment {
  const { env, problems } = loadEnvironment(dir);
  assert.ok(env, JSON.stringify(problems));
  return env;
}

test("a built image's tag changes with its Dockerfile or context, not with tasks, prompts or the manifest", (t) => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": manifest("build: sandbox/Dockerfile"),
    "tasks.jsonl": task("a"),
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\nCOPY tool.py /opt/tool.py\n",
    "sandbox/tool.py": "print(1)\n",
  });
  t.after(cleanup);
  const first = builtImageTag(load(dir));
  assert.match(first, /^rlenv\/env-hash-demo:[0-9a-f]{12}$/);

  writeFileSync(path.join(dir, "tasks.jsonl"), task("edited"));
  writeFileSync(path.join(dir, "environment.yaml"), manifest("build: sandbox/Dockerfile").replace("first", "second"));
  assert.equal(builtImageTag(load(dir)), first, "task and manifest edits keep the image");

  writeFileSync(path.join(dir, "sandbox/tool.py"), "print(2)\n");
  const afterContext = builtImageTag(load(dir));
  assert.notEqual(afterContext, first, "a context file edit needs a new image");

  writeFileSync(path.join(dir, "sandbox/Dockerfile"), "FROM rlenv/python:bookworm\nCOPY tool.py /opt/tool.py\nRUN true\n");
  const afterDockerfile = builtImageTag(load(dir));
  assert.notEqual(afterDockerfile, afterContext, "a Dockerfile edit needs a new image");

  writeFileSync(path.join(dir, "sandbox/extra.txt"), "new\n");
  assert.notEqual(builtImageTag(load(dir)), afterDockerfile, "a file added to the context needs a new image");
});

test("with the Dockerfile at the environment's root, the manifest and tasks are left out of the context", (t) => {
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": manifest("build: Dockerfile"),
    "tasks.jsonl": task("a"),
    Dockerfile: "FROM rlenv/python:bookworm\nCOPY shop.db /opt/shop.db\n",
    "shop.db": "rows\n",
  });
  t.after(cleanup);
  const env = load(dir);
  assert.deepEqual(buildContext(env).files, ["Dockerfile", "shop.db"]);
  const first = builtImageTag(env);
  writeFileSync(path.join(dir, "tasks.jsonl"), task("edited"));
  mkdirSync(path.join(dir, "runs"));
  writeFileSync(path.join(dir, "runs", "r.json"), "{}");
  assert.equal(builtImageTag(load(dir)), first);
  writeFileSync(path.join(dir, "shop.db"), "other rows\n");
  assert.notEqual(builtImageTag(load(dir)), first);
});

test("a link in the build context that leads out of it is refused, one inside is followed", (t) => {
  const outside = mkdtempSync(path.join(os.tmpdir(), "rlenv-outside-"));
  writeFileSync(path.join(outside, "secret"), "host file\n");
  const { dir, cleanup } = makeEnvDir({
    "environment.yaml": manifest("build: sandbox/Dockerfile"),
    "tasks.jsonl": task("a"),
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\n",
    "sandbox/real.txt": "x\n",
    "sandbox/alias.txt": { symlink: "real.txt" },
  });
  t.after(() => {
    cleanup();
    rmSync(outside, { recursive: true, force: true });
  });
  assert.deepEqual(buildContext(load(dir)).files, ["Dockerfile", "alias.txt", "real.txt"]);
  const { dir: bad, cleanup: cleanBad } = makeEnvDir({
    "environment.yaml": manifest("build: sandbox/Dockerfile"),
    "tasks.jsonl": task("a"),
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\n",
    "sandbox/secret": { symlink: path.join(outside, "secret") },
  });
  t.after(cleanBad);
  assert.throws(() => buildContext(load(bad)), /sandbox\/secret: error: .*link.*leads out/);
});

test("which images the process backend can stand in for: stock recipes yes; a Dockerfile or an unknown image no", (t) => {
  const built = makeEnvDir({
    "environment.yaml": manifest("build: sandbox/Dockerfile"),
    "tasks.jsonl": task("a"),
    "sandbox/Dockerfile": "FROM rlenv/python:bookworm\n",
  });
  const stock = makeEnvDir({ "environment.yaml": manifest("image: rlenv/python:bookworm"), "tasks.jsonl": task("a") });
  const other = makeEnvDir({ "environment.yaml": manifest("image: postgres:16"), "tasks.jsonl": task("a") });
  t.after(() => {
    for (const e of [built, stock, other]) e.cleanup();
  });

  const b = load(built.dir);
  const rel = path.relative(process.cwd(), built.dir);
  assert.match(imageNeed(b).dockerOnly ?? "", /built from sandbox\/Dockerfile/);
  assert.match(processDifference(b) ?? "", /^sandbox process: hash-demo: .*sandbox\/Dockerfile.*this host's programs/);
  assert.equal(
    buildCommandFor(b),
    // Relative where that is shorter and stays below the working folder, else the absolute path.
    `rlenv image build ${rel.length < built.dir.length && !rel.startsWith("..") ? rel : built.dir}`,
  );

  const o = load(other.dir);
  assert.match(imageNeed(o).dockerOnly ?? "", /postgres:16 is not one of the stock images/);
  assert.equal(buildCommandFor(o), null);

  const s = load(stock.dir);
  assert.equal(imageNeed(s).dockerOnly, null);
  assert.equal(buildCommandFor(s), "rlenv image build python");
  // A host without the image's programs: the process backend lacks them too, and says which.
  const empty = mkdtempSync(path.join(os.tmpdir(), "rlenv-nopath-"));
  const saved = process.env.PATH;
  process.env.PATH = empty;
  try {
    assert.deepEqual(imageNeed(s).missingOnHost, ["python3", "pytest", "git", "patch", "ps"]);
    assert.match(processDifference(s) ?? "", /provides python3, pytest, git, patch, ps, which this host lacks/);
  } finally {
    process.env.PATH = saved;
    rmSync(empty, { recursive: true, force: true });
  }
});

test("the stock image list the editor's bundle falls back on matches scripts/image/recipes", () => {
  assert.deepEqual(
    STOCK_IMAGES.map(({ name, tag, packages }) => ({ name, tag, packages })),
    listRecipes().map(({ name, tag, packages }) => ({ name, tag, packages })),
  );
});

test("a Dockerfile's base images leave out its own stages", () => {
  assert.deepEqual(
    baseImages("FROM rlenv/python:bookworm AS build\nRUN make\nFROM build\nFROM other:1 as x\nFROM rlenv/python:bookworm\n"),
    ["rlenv/python:bookworm", "other:1"],
  );
});

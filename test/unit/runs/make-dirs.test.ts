import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { makeDirs } from "../../../src/core/runs/make-dirs";

test("makeDirs makes every missing level, and is a no-op when the folder exists", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "make-dirs-"));
  try {
    const deep = path.join(root, "a", "b", "c");
    makeDirs(deep);
    assert.ok(statSync(deep).isDirectory());
    makeDirs(deep);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("makeDirs names the file standing where a folder should be", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "make-dirs-"));
  try {
    writeFileSync(path.join(root, "f"), "x");
    assert.throws(() => makeDirs(path.join(root, "f", "runs")), /f is not a folder/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("makeDirs under /proc fails with the path instead of hanging as recursive mkdirSync does", {
  skip: !statSync("/proc", { throwIfNoEntry: false }),
}, () => {
  assert.throws(() => makeDirs("/proc/rlenv-no-such/runs"), /cannot make folder \/proc\/rlenv-no-such\/runs: ENOENT/);
});

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fromImages } from "../../src/core/sandbox/image/build-env";
import { listRecipes, parseRecipe } from "../../src/core/sandbox/image/recipe";

function recipeDir(files: Record<string, string>, script = "#!/bin/sh\n"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-recipe-"));
  mkdirSync(path.join(dir, "recipes"));
  writeFileSync(path.join(dir, "rootfs.sh"), script);
  for (const [n, t] of Object.entries(files)) writeFileSync(path.join(dir, "recipes", n), t);
  return dir;
}

test("the shipped python recipe names the image the example environments use, with python3 and pytest", () => {
  const python = listRecipes().find((r) => r.name === "python");
  assert.ok(python);
  assert.equal(python.tag, "rlenv/python:bookworm");
  assert.equal(python.suite, "bookworm");
  for (const p of ["python3", "python3-pytest"]) assert.ok(python.packages.includes(p), p);
  assert.match(python.hash, /^[0-9a-f]{16}$/);
});

test("a recipe is data: headers, packages, comments; its hash changes with the recipe and with the rootfs script", (t) => {
  const a = recipeDir({ "blender.txt": "# 3D\ntag: rlenv/blender:bookworm\nsuite: bookworm\npython3\nblender\n" });
  const b = recipeDir(
    { "blender.txt": "# 3D\ntag: rlenv/blender:bookworm\nsuite: bookworm\npython3\nblender\n" },
    "#!/bin/sh\n# changed\n",
  );
  t.after(() => {
    rmSync(a, { recursive: true });
    rmSync(b, { recursive: true });
  });
  const ra = parseRecipe(path.join(a, "recipes", "blender.txt"));
  assert.deepEqual(
    { ...ra, hash: "", file: "" },
    { name: "blender", file: "", tag: "rlenv/blender:bookworm", suite: "bookworm", packages: ["python3", "blender"], hash: "" },
  );
  assert.notEqual(ra.hash, parseRecipe(path.join(b, "recipes", "blender.txt")).hash);
  assert.equal(listRecipes(path.join(a, "recipes")).length, 1);
});

test("a bad recipe line is reported with its file and line", (t) => {
  const d = recipeDir({ "bad.txt": "tag: x/y:z\npython3\nnot a package!\n", "notag.txt": "python3\n" });
  t.after(() => rmSync(d, { recursive: true }));
  assert.throws(() => parseRecipe(path.join(d, "recipes", "bad.txt")), /bad\.txt:3: "not a package!" is neither/);
  assert.throws(() => parseRecipe(path.join(d, "recipes", "notag.txt")), /notag\.txt:1: the recipe needs a "tag: name:tag" line/);
});

test("fromImages finds the base images of a Dockerfile", () => {
  assert.deepEqual(fromImages("FROM rlenv/python:bookworm AS base\nRUN x\nfrom --platform=linux/amd64 other:1\n"), [
    "rlenv/python:bookworm",
    "other:1",
  ]);
});

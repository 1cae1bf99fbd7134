import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { scene3dDomain } from "../../src/core/domains/scene3d";
import { ToolError } from "../../src/core/model/errors";
import { BuiltinBackend } from "../../src/core/domains/scene3d/builtin-backend";
import type { ToolContext } from "../../src/core/model/domain";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { makeEnvDir } from "../support/tmp-env";

const REPO = path.resolve(import.meta.dirname, "..", "..");

/** A glTF whose one mesh spans x −1…1, y 0…2 (glTF's up), z −0.5…0.5, under a node moved +3 on x. */
const GLTF = JSON.stringify({
  asset: { version: "2.0" },
  scene: 0,
  scenes: [{ nodes: [0] }],
  nodes: [{ mesh: 0, translation: [3, 0, 0] }],
  meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
  accessors: [{ componentType: 5126, count: 8, type: "VEC3", min: [-1, 0, -0.5], max: [1, 2, 0.5] }],
});

const MANIFEST = "name: t\ndomain: scene3d\nscene:\n  assets: assets\ntasks: tasks.jsonl\nreward:\n  - type: scene\n";

describe("builtin scene backend", () => {
  test("a rejected update leaves the scene exactly as it was", async () => {
    const b = new BuiltinBackend();
    await b.add({ name: "a", kind: "box", position: [1, 2, 3] });
    await b.add({ name: "b", kind: "box" });
    const before = await b.snapshot();
    await assert.rejects(
      b.update({ name: "a", position: [9, 9, 9], parent: "nope" }),
      /no object named 'nope'; objects in the scene: 'a', 'b'/,
    );
    await assert.rejects(b.update({ name: "a", position: [9, 9, 9], new_name: "b" }), /cannot rename to 'b'/);
    await assert.rejects(b.update({ name: "a", position: [9, 9, 9], parent: "a" }), /cycle/);
    assert.deepEqual(await b.snapshot(), before);
  });

  test("remove takes the children along; group keeps world placement", async () => {
    const b = new BuiltinBackend();
    await b.add({ name: "shelf", kind: "box", position: [0, 0, 1], rotation: [0, 0, 90] });
    await b.add({ name: "book", kind: "box", parent: "shelf", position: [1, 0, 0] });
    const book = (await b.snapshot()).nodes.find((n) => n.name === "book")!;
    assert.deepEqual(book.position, [0, 1, 1]);
    await b.group({ name: "g", objects: ["book"], position: [5, 5, 5] });
    const again = (await b.snapshot()).nodes.find((n) => n.name === "book")!;
    assert.deepEqual(again.position, [0, 1, 1]);
    assert.equal(again.parent, "g");
    const g = (await b.snapshot()).nodes.find((n) => n.name === "g")!;
    assert.deepEqual(g.bbox, again.bbox, "a group's box is its members' union");
    await b.remove("g");
    assert.deepEqual(
      (await b.snapshot()).nodes.map((n) => n.name),
      ["shelf"],
    );
  });

  test("glTF assets: bounds from the accessors, turned from Y-up to Z-up, resolved inside the asset folder", async () => {
    const { dir, cleanup } = makeEnvDir({ "assets/vase.gltf": GLTF });
    try {
      const b = new BuiltinBackend(path.join(dir, "assets"));
      await b.add({ name: "vase", kind: "asset", asset: "vase.gltf", position: [0, 0, 1] });
      const n = (await b.snapshot()).nodes[0]!;
      assert.deepEqual(n.dimensions, [2, 1, 2]);
      assert.deepEqual(n.center, [3, 0, 2]);
      assert.equal(n.asset, "vase.gltf");
      await assert.rejects(b.add({ name: "x", kind: "asset", asset: "../../etc/passwd" }), ToolError);
      await assert.rejects(b.add({ name: "y", kind: "asset", asset: "missing.glb" }), /cannot read asset/);
    } finally {
      cleanup();
    }
  });
});

describe("scene3d plugin", () => {
  test("tool errors are observations that name the objects; the snapshot rides along", async () => {
    const { env } = loadEnvironment(path.join(REPO, "environments", "scene3d-tabletop"));
    assert.ok(env);
    const task = env.tasks.find((t) => t.id === "red-cup-on-table")!;
    const ctx: ToolContext = {
      env,
      task,
      sandbox: () => Promise.reject(new Error("no sandbox")),
      state: new Map(),
      signal: new AbortController().signal,
      timeoutMs: 1000,
    };
    await scene3dDomain.setup!(ctx);
    const tools = new Map(scene3dDomain.tools(env).map((t) => [t.name, t]));
    assert.deepEqual([...tools.keys()], ["add_object", "update_object", "remove_object", "group", "query_scene", "render_view", "submit"]);
    const r = await tools.get("remove_object")!.run({ name: "cup" }, ctx);
    assert.equal(r.status, "error");
    assert.equal(r.output, "error: no object named 'cup'; objects in the scene: 'table'");
    assert.deepEqual(
      r.artifacts?.scene?.nodes.map((n) => n.name),
      ["table"],
    );
    const bad = await tools.get("add_object")!.run({ name: "cup", kind: "cylinder", position: [0, 0] }, ctx);
    assert.match(String(bad.output), /invalid arguments: position/);
    const render = await tools.get("render_view")!.run({}, ctx);
    assert.match(String(render.output), /builtin backend has no renderer/);
    const sub = await tools.get("submit")!.run({}, ctx);
    assert.ok(sub.submit);
    const score = await scene3dDomain.verifiers![0]!.verify({ type: "scene", weight: 1 }, { ...ctx, answer: null, events: [] });
    assert.equal(score.score, 0);
    assert.match(String(score.reason), /4 of 4 checks failed/);
    await scene3dDomain.teardown!(ctx);
  });

  test("the example environments' targets have no static problems", async () => {
    for (const name of ["scene3d-tabletop", "scene3d-blender"]) {
      const { env, problems } = loadEnvironment(path.join(REPO, "environments", name));
      assert.ok(env, name);
      assert.deepEqual(problems, []);
      assert.ok(env.tasks.length >= (name === "scene3d-tabletop" ? 12 : 5));
      assert.deepEqual(await scene3dDomain.checkTasks!(env), [], name);
    }
  });

  test("bad targets are reported at the file, line, column and field", async () => {
    const tasks = [
      {
        id: "ok",
        prompt: "p",
        target: { checks: [{ check: "exists", objects: ["a"] }] },
        solution: { tool_calls: [{ name: "add_object", arguments: { name: "a", kind: "box" } }] },
      },
      {
        id: "bad",
        prompt: "p",
        target: {
          initial: [
            { name: "t", kind: "box" },
            { name: "t", kind: "box" },
          ],
          checks: [
            { check: "on_top_of", object: "cup" },
            { check: "distnce", a: "t", b: "t" },
            { check: "exists", objects: ["ghost"] },
          ],
        },
      },
    ];
    const { dir, cleanup } = makeEnvDir({
      "environment.yaml": MANIFEST,
      "tasks.jsonl": tasks.map((t) => JSON.stringify(t)).join("\n"),
      "assets/.keep": "",
    });
    try {
      const { env } = loadEnvironment(dir);
      assert.ok(env);
      const problems = await scene3dDomain.checkTasks!(env);
      const line2 = JSON.stringify(tasks[1]);
      const col = (needle: string) => line2.indexOf(needle) + 1;
      const by = (p: string) => problems.find((x) => x.path === p);
      assert.equal(
        by("tasks[1].target.initial[1]")?.message,
        "an object named 't' already exists; names are unique (use update_object to change it)",
      );
      assert.equal(by("tasks[1].target.initial[1]")?.line, 2);
      assert.equal(by("tasks[1].target.initial[1]")?.column, col('{"name":"t","kind":"box"}]'));
      assert.match(by("tasks[1].target.checks[0]")?.message ?? "", /missing required field 'support' \(a string\)/);
      assert.match(by("tasks[1].target.checks[1].check")?.message ?? "", /unknown check "distnce"/);
      assert.equal(by("tasks[1].target.checks[1].check")?.column, col('"distnce"'));
      assert.ok(
        problems.every((p) => p.file.endsWith("tasks.jsonl") && p.path.startsWith("tasks[1]")),
        JSON.stringify(problems),
      );
    } finally {
      cleanup();
    }
  });
});

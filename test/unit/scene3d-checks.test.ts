import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BuiltinBackend } from "../../src/core/domains/scene3d/builtin-backend";
import { parseChecks, type SceneCheck } from "../../src/core/domains/scene3d/checks/check-spec";
import { SceneChecker } from "../../src/core/domains/scene3d/checks/evaluate";
import type { AddObjectArgs } from "../../src/core/domains/scene3d/tool-args";

/** Build a scene with the builtin backend and run one check on it. */
async function run(objects: AddObjectArgs[], raw: Record<string, unknown>) {
  const b = new BuiltinBackend();
  for (const o of objects) await b.add(o);
  const { checks, problems } = parseChecks([raw]);
  assert.deepEqual(problems, []);
  return new SceneChecker((await b.snapshot()).nodes).one(checks[0] as SceneCheck);
}

const table: AddObjectArgs = { name: "table", kind: "box", position: [0, 0, 0.5], dimensions: [2, 1, 1] };
const cupAt = (z: number, x = 0): AddObjectArgs => ({ name: "cup", kind: "cylinder", position: [x, 0, z], dimensions: [0.2, 0.2, 0.3] });

describe("scene checks: pass, and fail by a small margin", () => {
  test("exists", async () => {
    assert.equal((await run([table], { check: "exists", objects: ["table"] })).passed, true);
    const r = await run([table], { check: "exists", objects: ["table", "chair"] });
    assert.equal(r.passed, false);
    assert.deepEqual(r.measured, { missing: ["chair"] });
  });

  test("count by kind and colour", async () => {
    const reds = [0, 1, 2].map(
      (i): AddObjectArgs => ({ name: `b${i}`, kind: "box", position: [i * 2, 0, 0], color: i < 2 ? "red" : "#0000ff" }),
    );
    assert.equal((await run(reds, { check: "count", kind: "box", color: "red", equals: 2 })).passed, true);
    const r = await run(reds, { check: "count", kind: "box", color: "red", min: 3 });
    assert.equal(r.passed, false);
    assert.equal(r.measured, 2);
  });

  test("position within tolerance", async () => {
    const box = (x: number): AddObjectArgs => ({ name: "a", kind: "box", position: [x, 0, 0] });
    assert.equal((await run([box(1.04)], { check: "position", object: "a", at: [1, 0, 0], tolerance: 0.05 })).passed, true);
    assert.equal((await run([box(1.06)], { check: "position", object: "a", at: [1, 0, 0], tolerance: 0.05 })).passed, false);
    // null skips an axis
    assert.equal((await run([box(7)], { check: "position", object: "a", at: [null, 0, 0] })).passed, true);
  });

  test("size uses world dimensions (dimensions × scale)", async () => {
    const box = (s: number): AddObjectArgs => ({ name: "a", kind: "box", dimensions: [1, 2, 1], scale: [s, 1, 1] });
    assert.equal((await run([box(2)], { check: "size", object: "a", dimensions: [2, 2, 1] })).passed, true);
    assert.equal((await run([box(2.07)], { check: "size", object: "a", dimensions: [2, 2, 1], tolerance: 0.05 })).passed, false);
  });

  test("on_top_of: resting contact and footprint", async () => {
    assert.equal((await run([table, cupAt(1.15)], { check: "on_top_of", object: "cup", support: "table" })).passed, true);
    const floating = await run([table, cupAt(1.18)], { check: "on_top_of", object: "cup", support: "table", tolerance: 0.02 });
    assert.equal(floating.passed, false);
    assert.deepEqual(floating.measured, { gap: 0.03, overlap: 1 });
    const sunk = await run([table, cupAt(1.12)], { check: "on_top_of", object: "cup", support: "table", tolerance: 0.02 });
    assert.equal(sunk.passed, false);
    // Off the edge: the cup's centre just past the table's edge leaves under half its footprint over it.
    assert.equal((await run([table, cupAt(1.15, 0.99)], { check: "on_top_of", object: "cup", support: "table" })).passed, true);
    assert.equal((await run([table, cupAt(1.15, 1.01)], { check: "on_top_of", object: "cup", support: "table" })).passed, false);
  });

  test("on_top_of uses the rotated footprint, not an axis-aligned one", async () => {
    // A 2×0.2 plank turned 45° about z: an object at (0.6, 0.6) is inside the plank's AABB but not over the plank.
    const plank: AddObjectArgs = { name: "plank", kind: "box", position: [0, 0, 0.05], rotation: [0, 0, 45], dimensions: [2, 0.2, 0.1] };
    const puck = (x: number, y: number): AddObjectArgs => ({
      name: "puck",
      kind: "box",
      position: [x, y, 0.15],
      dimensions: [0.1, 0.1, 0.1],
    });
    assert.equal((await run([plank, puck(0.5, 0.5)], { check: "on_top_of", object: "puck", support: "plank" })).passed, true);
    assert.equal((await run([plank, puck(0.6, 0.4)], { check: "on_top_of", object: "puck", support: "plank" })).passed, false);
  });

  test("inside", async () => {
    const crate: AddObjectArgs = { name: "crate", kind: "box", dimensions: [1, 1, 1] };
    const ball = (x: number): AddObjectArgs => ({ name: "ball", kind: "box", position: [x, 0, 0], dimensions: [0.4, 0.4, 0.4] });
    assert.equal((await run([crate, ball(0.29)], { check: "inside", object: "ball", container: "crate", tolerance: 0 })).passed, true);
    const out = await run([crate, ball(0.32)], { check: "inside", object: "ball", container: "crate", tolerance: 0.01 });
    assert.equal(out.passed, false);
    assert.deepEqual(out.measured, { outside: 0.02 });
  });

  test("no_overlap with oriented boxes (SAT), where axis-aligned boxes would overlap", async () => {
    // Two thin bars rotated 45°: their AABBs overlap heavily, the bars themselves are 0.01 apart.
    const bar = (name: string, off: number): AddObjectArgs => ({
      name,
      kind: "box",
      position: [off, -off, 0],
      rotation: [0, 0, 45],
      dimensions: [2, 0.2, 0.2],
    });
    const gap = (0.2 + 0.01) / 2 / Math.SQRT2; // centre offset per axis for a 0.01 gap along the bars' normal
    assert.equal((await run([bar("a", -gap), bar("b", gap)], { check: "no_overlap", objects: ["a", "b"], tolerance: 0 })).passed, true);
    const tight = (0.2 - 0.01) / 2 / Math.SQRT2; // 0.01 interpenetration
    const r = await run([bar("a", -tight), bar("b", tight)], { check: "no_overlap", objects: ["a", "b"], tolerance: 0.005 });
    assert.equal(r.passed, false);
    assert.equal((r.measured as { worst: number }).worst, 0.01);
  });

  test("no_overlap accepts resting contact", async () => {
    assert.equal((await run([table, cupAt(1.15)], { check: "no_overlap", objects: ["table", "cup"] })).passed, true);
  });

  test("aligned along an axis", async () => {
    const row = (dy: number) =>
      [0, 1, 2].map((i): AddObjectArgs => ({ name: `p${i}`, kind: "sphere", position: [i, i === 2 ? dy : 0, 0] }));
    assert.equal((await run(row(0.015), { check: "aligned", axis: "x", objects: ["p0", "p1", "p2"], tolerance: 0.02 })).passed, true);
    assert.equal((await run(row(0.025), { check: "aligned", axis: "x", objects: ["p0", "p1", "p2"], tolerance: 0.02 })).passed, false);
  });

  test("distance in a range", async () => {
    const pair = (d: number): AddObjectArgs[] => [
      { name: "a", kind: "box", position: [0, 0, 0] },
      { name: "b", kind: "box", position: [d, 0, 0] },
    ];
    assert.equal((await run(pair(1.5), { check: "distance", a: "a", b: "b", min: 1, max: 1.5 })).passed, true);
    assert.equal((await run(pair(1.51), { check: "distance", a: "a", b: "b", min: 1, max: 1.5 })).passed, false);
    assert.equal((await run(pair(0.99), { check: "distance", a: "a", b: "b", min: 1, max: 1.5 })).passed, false);
  });

  test("facing: the front (-y by default) points at the target", async () => {
    const chair = (yaw: number): AddObjectArgs => ({ name: "chair", kind: "box", position: [0, 2, 0], rotation: [0, 0, yaw] });
    const desk: AddObjectArgs = { name: "desk", kind: "box", position: [0, 0, 0] };
    // -y already points from (0,2) towards (0,0).
    assert.equal((await run([chair(14), desk], { check: "facing", object: "chair", target: "desk", tolerance: 15 })).passed, true);
    const r = await run([chair(16), desk], { check: "facing", object: "chair", target: "desk", tolerance: 15 });
    assert.equal(r.passed, false);
    assert.deepEqual(r.measured, { angle: 16 });
  });

  test("iou against a target scene, voxelised (spheres are not boxes)", async () => {
    const target = [{ name: "t", kind: "sphere", position: [0, 0, 0], dimensions: [1, 1, 1] }];
    const same = await run([{ name: "s", kind: "sphere", dimensions: [1, 1, 1] }], { check: "iou", target, voxel: 0.05, min: 0.9 });
    assert.equal(same.passed, true);
    assert.equal((same.measured as { iou: number }).iou, 1);
    // A unit box around the same sphere: IoU = (π/6) ≈ 0.52.
    const box = await run([{ name: "s", kind: "box", dimensions: [1, 1, 1] }], { check: "iou", target, voxel: 0.05, min: 0.5 });
    assert.ok(Math.abs((box.measured as { iou: number }).iou - Math.PI / 6) < 0.03);
    const shifted = await run([{ name: "s", kind: "sphere", position: [0.1, 0, 0], dimensions: [1, 1, 1] }], {
      check: "iou",
      target,
      voxel: 0.05,
      min: 0.9,
    });
    assert.equal(shifted.passed, false);
  });

  test("a check on a missing object fails and says which", async () => {
    const r = await run([table], { check: "on_top_of", object: "cup", support: "table" });
    assert.equal(r.passed, false);
    assert.match(r.reason, /no object named 'cup'/);
  });

  test("weighted fraction", async () => {
    const b = new BuiltinBackend();
    await b.add(table);
    const { checks } = parseChecks([
      { check: "exists", objects: ["table"], weight: 3 },
      { check: "exists", objects: ["chair"], weight: 1 },
    ]);
    const report = await new SceneChecker((await b.snapshot()).nodes).evaluate(checks);
    assert.equal(report.score, 0.75);
  });

  test("bad checks are reported with their index and field", () => {
    const { checks, problems } = parseChecks([
      { check: "exists", objects: ["a"] },
      { check: "on_top", object: "a" },
      { check: "distance", a: "x", b: "y" },
      { check: "position", object: "a", at: [1, 2] },
    ]);
    assert.equal(checks.length, 1);
    assert.match(problems[0]!.message, /unknown check "on_top" \(did you mean 'on_top_of'\?\); checks: exists, count/);
    assert.deepEqual(problems[0]!.path, [1, "check"]);
    assert.match(problems[1]!.message, /give min, max or both/);
    assert.deepEqual(problems[2]!.path.slice(0, 2), [3, "at"]);
  });
});

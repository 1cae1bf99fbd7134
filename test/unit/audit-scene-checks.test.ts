import assert from "node:assert/strict";
import { test } from "node:test";
import { sceneVariants } from "../../src/core/audit/perturb-scene";
import { builtinProbesDir, loadProbes, probePolicy } from "../../src/core/audit/probes";
import { BuiltinBackend } from "../../src/core/domains/scene3d/builtin-backend";
import { parseChecks } from "../../src/core/domains/scene3d/checks/check-spec";
import { SceneChecker } from "../../src/core/domains/scene3d/checks/evaluate";
import type { AddObjectArgs, GroupArgs } from "../../src/core/domains/scene3d/tool-args";
import { sceneVerifier } from "../../src/core/domains/scene3d/verifier";
import type { Environment } from "../../src/core/model/environment";
import type { LoadedTask } from "../../src/core/model/environment";
import type { SceneNode } from "../../src/core/schema/trajectory";
import type { ToolCallSpec } from "../../src/core/schema/task";

/** The scene the builtin backend builds from a list of add_object / group calls. */
async function build(calls: ToolCallSpec[]): Promise<SceneNode[]> {
  const b = new BuiltinBackend();
  for (const c of calls) {
    if (c.name === "add_object") await b.add(c.arguments as AddObjectArgs);
    else if (c.name === "group") await b.group(c.arguments as GroupArgs);
    else throw new Error(`unexpected call ${c.name}`);
  }
  const nodes = (await b.snapshot()).nodes;
  await b.close();
  return nodes;
}

async function passes(calls: ToolCallSpec[], raw: unknown[]): Promise<boolean[]> {
  const { checks, problems } = parseChecks(raw);
  assert.deepEqual(problems, []);
  const report = await new SceneChecker(await build(calls)).evaluate(checks);
  return report.results.map((r) => r.passed);
}

const cup = (rotation: [number, number, number]): ToolCallSpec => ({
  name: "add_object",
  arguments: { name: "cup", kind: "cylinder", position: [0, 0, 0.05], rotation, dimensions: [0.08, 0.08, 0.1] },
});

test("orientation check: an upright cup passes, a cup tipped over by 90° (same size along its own axes) fails", async () => {
  const checks = [
    { check: "orientation", object: "cup" },
    { check: "size", object: "cup", dimensions: [0.08, 0.08, 0.1], tolerance: 0.01 },
  ];
  assert.deepEqual(await passes([cup([0, 0, 0])], checks), [true, true]);
  assert.deepEqual(await passes([cup([90, 0, 0])], checks), [false, true]);
  // Turned about its own axis it is still upright; a signed axis tells upside down apart.
  assert.deepEqual(await passes([cup([0, 0, 90])], checks), [true, true]);
  assert.deepEqual(await passes([cup([180, 0, 0])], [{ check: "orientation", object: "cup" }]), [false]);
  // A nose along -y: its z axis must point along -y.
  assert.deepEqual(await passes([cup([90, 0, 0])], [{ check: "orientation", object: "cup", axis: "z", along: "-y" }]), [true]);
});

test("orientation check: either_direction accepts a shape symmetric end to end pointing either way, and only then", async () => {
  // A cylinder lying along -x: its z axis points along world -x (rotated -90° about y).
  const rod = (rotation: [number, number, number]): ToolCallSpec => ({
    name: "add_object",
    arguments: { name: "rod", kind: "cylinder", position: [0, 0, 0.05], rotation, dimensions: [0.05, 0.05, 1] },
  });
  const alongX = { check: "orientation", object: "rod", axis: "z", along: "x" };
  assert.deepEqual(await passes([rod([0, -90, 0])], [alongX]), [false]);
  assert.deepEqual(await passes([rod([0, -90, 0])], [{ ...alongX, either_direction: true }]), [true]);
  assert.deepEqual(await passes([rod([0, 90, 0])], [alongX]), [true], "rotated the other way it points along +x");
  assert.deepEqual(await passes([rod([0, 90, 0])], [{ ...alongX, either_direction: true }]), [true]);
  // Either direction is still an axis: along y, or standing up, fails; 8° off -x passes within 10°.
  assert.deepEqual(await passes([rod([0, 0, 0])], [{ ...alongX, either_direction: true }]), [false]);
  assert.deepEqual(await passes([rod([90, 0, 0])], [{ ...alongX, either_direction: true }]), [false]);
  assert.deepEqual(await passes([rod([0, -82, 0])], [{ ...alongX, either_direction: true }]), [true]);
  const { checks } = parseChecks([{ ...alongX, either_direction: true }]);
  const report = await new SceneChecker(await build([rod([0, -90, 0])])).evaluate(checks);
  assert.match(report.results[0]?.reason ?? "", /0° off world ±x/);
  // The schema refuses a non-boolean.
  assert.notDeepEqual(parseChecks([{ ...alongX, either_direction: "yes" }]).problems, []);
});

const lamp: ToolCallSpec[] = [
  { name: "add_object", arguments: { name: "base", kind: "cylinder", position: [1, 1, 0.02], dimensions: [0.3, 0.3, 0.04] } },
  { name: "add_object", arguments: { name: "pole", kind: "cylinder", position: [1, 1, 0.74], dimensions: [0.03, 0.03, 1.4] } },
  { name: "group", arguments: { name: "lamp", objects: ["base", "pole"], position: [1, 1, 0] } },
];
const lampChecks = [
  { check: "on_top_of", object: "pole", support: "base", min_overlap: 0.9 },
  { check: "parent", object: "base", parent: "lamp" },
  { check: "parent", object: "pole", parent: "lamp" },
];

test("parent-swap perturbation: a member left out of its group stays where it was, and only a parent check notices", async () => {
  const swaps = sceneVariants(lamp, lampChecks).filter((v) => v.operator === "parent-swap");
  assert.equal(swaps.length, 1);
  const swap = swaps[0]!;
  assert.equal(swap.description, "base left out of group lamp");
  assert.deepEqual(await passes(lamp, lampChecks), [true, true, true]);
  // World-space checks still pass: the hierarchy check is what rejects it.
  assert.deepEqual(await passes(swap.calls, lampChecks), [true, false, true]);
});

test("parent-swap perturbation: an add_object's parent is swapped for another object made before it", () => {
  const calls: ToolCallSpec[] = [
    { name: "add_object", arguments: { name: "desk", kind: "box", position: [0, 0, 0.4], dimensions: [1, 0.6, 0.8] } },
    { name: "add_object", arguments: { name: "shelf", kind: "box", position: [2, 0, 0.4], dimensions: [1, 0.3, 0.8] } },
    { name: "add_object", arguments: { name: "book", kind: "box", position: [0, 0, 0.45], dimensions: [0.2, 0.15, 0.05], parent: "desk" } },
  ];
  const swap = sceneVariants(calls, [{ check: "on_top_of", object: "book", support: "desk" }]).find((v) => v.operator === "parent-swap");
  assert.equal(swap?.description, "book parented to shelf instead of desk");
  assert.equal(swap?.calls[2]?.arguments.parent, "shelf");
});

test("scene verifier mode all: a scene that passes some checks scores 0, not the fraction it passed", async () => {
  const checks = [
    { check: "exists", objects: ["cup"] },
    { check: "orientation", object: "cup" },
  ];
  const nodes = await build([cup([90, 0, 0])]);
  const ctx = {
    task: { id: "t", source: { file: "tasks.jsonl", line: 1 }, target: { checks } },
    env: { manifestPath: "environment.yaml" },
    state: new Map([["scene3d.snapshot", { nodes }]]),
  } as unknown as Parameters<typeof sceneVerifier.verify>[1];
  const fraction = await sceneVerifier.verify({ type: "scene", weight: 1 }, ctx);
  const all = await sceneVerifier.verify({ type: "scene", weight: 1, mode: "all" }, ctx);
  assert.equal(fraction.score, 0.5);
  assert.equal(all.score, 0);
  assert.equal(all.passed, false);
});

test("scene-one-point probe: applies to a scene built by tool calls, not to one a script builds (it would replay the oracle)", () => {
  const { probes } = loadProbes([builtinProbesDir()]);
  const probe = probes.find((p) => p.name === "scene-one-point");
  assert.ok(probe);
  const env = { manifest: { domain: "scene3d" } } as unknown as Environment;
  const task = (calls: ToolCallSpec[]) => ({ id: "t", prompt: "", solution: { tool_calls: calls } }) as unknown as LoadedTask;
  const tools = ["add_object", "run_bpy", "submit"];
  const byCalls = probePolicy(probe, env, task(lamp), {}, tools);
  assert.ok("policy" in byCalls);
  const byScript = probePolicy(probe, env, task([{ name: "run_bpy", arguments: { code: "import bpy" } }]), {}, tools);
  assert.ok("skip" in byScript);
  assert.match(byScript.skip, /a script builds the scene/);
});

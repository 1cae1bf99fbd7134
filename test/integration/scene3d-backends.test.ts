import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { scene3dDomain } from "../../src/core/domains/scene3d";
import type { ToolContext, ToolResult } from "../../src/core/model/domain";
import type { Environment } from "../../src/core/model/environment";
import type { LoadedTask } from "../../src/core/model/environment";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { sandboxRequest } from "../../src/core/sandbox/request";
import type { Sandbox, SandboxProvider } from "../../src/core/model/sandbox";
import type { SceneNode, SceneSnapshot } from "../../src/core/schema/trajectory";
import { blenderSandboxSkip, loadSceneEnv } from "./scene3d-support";

/**
 * One table of tool calls, played through the scene tools on each backend. Every step
 * states whether it succeeds (or the error it gives) and, for some, where things end up;
 * the Blender run must then give the same snapshot as the builtin one, step by step.
 */
type Row = {
  tool: string;
  args: Record<string, unknown>;
  error?: RegExp;
  expect?: Record<string, Partial<Record<"position" | "rotation" | "dimensions" | "center", number[]>>>;
};

const TABLE: Row[] = [
  { tool: "add_object", args: { name: "table", kind: "box", position: [0, 0, 0.5], dimensions: [2, 1, 1], color: "brown" } },
  { tool: "add_object", args: { name: "ball", kind: "sphere", position: [0.5, 0, 1.2], dimensions: [0.4, 0.4, 0.4], color: "#FF0000" } },
  {
    tool: "add_object",
    args: { name: "lamp", kind: "cone", position: [-0.5, 0.2, 1.3], rotation: [0, 0, 30], scale: [1, 2, 1], dimensions: [0.3, 0.3, 0.6] },
  },
  { tool: "add_object", args: { name: "can", kind: "cylinder", position: [2, 2, 0.1], rotation: [90, 0, 0], dimensions: [0.2, 0.2, 0.4] } },
  { tool: "add_object", args: { name: "floor", kind: "plane", dimensions: [6, 6, 0] } },
  {
    tool: "add_object",
    args: { name: "ring", kind: "torus", position: [1, -1, 0.5], rotation: [30, 45, 60], dimensions: [0.8, 0.8, 0.2] },
  },
  { tool: "add_object", args: { name: "ball", kind: "box" }, error: /an object named 'ball' already exists/ },
  {
    tool: "update_object",
    args: { name: "chair", position: [0, 0, 0] },
    error: /no object named 'chair'; objects in the scene: 'ball', 'can', 'floor', 'lamp', 'ring', 'table'/,
  },
  { tool: "add_object", args: { name: "x", kind: "pyramid" }, error: /invalid arguments: kind/ },
  {
    tool: "add_object",
    args: { name: "cup", kind: "cylinder", parent: "table", position: [0.5, 0, 0.6], dimensions: [0.1, 0.1, 0.2] },
    expect: { cup: { position: [0.5, 0, 1.1] } },
  },
  { tool: "update_object", args: { name: "table", position: [1, 0, 0.5] }, expect: { cup: { position: [1.5, 0, 1.1] } } },
  {
    tool: "update_object",
    args: { name: "table", rotation: [0, 0, 90] },
    expect: { cup: { position: [1, 0.5, 1.1], rotation: [0, 0, 90] }, table: { dimensions: [2, 1, 1] } },
  },
  {
    tool: "group",
    args: { name: "set", objects: ["ball", "lamp"], position: [1, 1, 0] },
    expect: { ball: { position: [0.5, 0, 1.2] }, set: { position: [1, 1, 0] } },
  },
  { tool: "update_object", args: { name: "set", rotation: [0, 0, 45], position: [0, 0, 0.5] } },
  { tool: "update_object", args: { name: "cup", parent: null }, expect: { cup: { position: [0.5, 0, 0.6], rotation: [0, 0, 0] } } },
  { tool: "update_object", args: { name: "ball", new_name: "orb", dimensions: [0.6, 0.6, 0.6], color: "blue" } },
  { tool: "update_object", args: { name: "set", parent: "orb" }, error: /cycle/ },
  {
    tool: "update_object",
    args: { name: "can", scale: [2, 1, 1], material: { roughness: 0.3 } },
    expect: { can: { dimensions: [0.4, 0.2, 0.4] } },
  },
  { tool: "query_scene", args: { name: "ghost" }, error: /no object named 'ghost'/ },
  // vase.gltf: a tapered box 0.16 × 0.16 at the base, 0.3 tall, its origin at the bottom (Y-up in the file).
  {
    tool: "add_object",
    args: { name: "vase", kind: "asset", asset: "vase.gltf", position: [0.5, 0.5, 1], rotation: [0, 0, 30], color: "blue" },
    expect: { vase: { dimensions: [0.16, 0.16, 0.3], center: [0.5, 0.5, 1.15] } },
  },
  {
    tool: "update_object",
    args: { name: "vase", dimensions: [0.32, 0.16, 0.6] },
    expect: { vase: { dimensions: [0.32, 0.16, 0.6], center: [0.5, 0.5, 1.3] } },
  },
  { tool: "add_object", args: { name: "urn", kind: "asset", asset: "../environment.yaml" }, error: /asset '..\/environment.yaml'/ },
  { tool: "remove_object", args: { name: "set" }, expect: {} },
  {
    tool: "remove_object",
    args: { name: "orb" },
    error: /no object named 'orb'; objects in the scene: 'can', 'cup', 'floor', 'ring', 'table', 'vase'/,
  },
  { tool: "query_scene", args: {} },
];

const task = (env: Environment): LoadedTask => ({
  id: "semantics",
  prompt: "tool semantics",
  target: {},
  source: { file: env.manifestPath, line: 0, index: 0 },
});

async function play(env: Environment, sandbox: () => Promise<Sandbox>): Promise<Array<{ row: Row; r: ToolResult }>> {
  const tools = new Map(scene3dDomain.tools(env).map((t) => [t.name, t]));
  const ctx: ToolContext = { env, task: task(env), sandbox, state: new Map(), signal: new AbortController().signal, timeoutMs: 30_000 };
  await scene3dDomain.setup?.(ctx);
  const out: Array<{ row: Row; r: ToolResult }> = [];
  try {
    for (const row of TABLE) {
      const tool = tools.get(row.tool);
      assert.ok(tool, `no tool ${row.tool}`);
      out.push({ row, r: await tool.run(row.args, ctx) });
    }
  } finally {
    await scene3dDomain.teardown?.(ctx);
  }
  return out;
}

const text = (r: ToolResult) =>
  typeof r.output === "string" ? r.output : r.output.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");

function checkRowOutcomes(results: Array<{ row: Row; r: ToolResult }>): void {
  for (const [i, { row, r }] of results.entries()) {
    const what = `step ${i} ${row.tool} ${JSON.stringify(row.args)}`;
    if (row.error) {
      assert.equal(r.status, "error", `${what} should fail`);
      assert.match(text(r), row.error, what);
    } else assert.equal(r.status, "ok", `${what}: ${text(r)}`);
    assert.ok(r.artifacts?.scene, `${what} carries a snapshot`);
    for (const [name, want] of Object.entries(row.expect ?? {})) {
      const node = r.artifacts!.scene!.nodes.find((n) => n.name === name);
      assert.ok(node, `${what}: ${name} in the snapshot`);
      for (const [field, v] of Object.entries(want)) {
        const got = node[field as keyof SceneNode] as number[];
        for (const [k, x] of v.entries())
          assert.ok(Math.abs(got[k]! - x) < 1e-4, `${what}: ${name}.${field} = ${JSON.stringify(got)}, want ${JSON.stringify(v)}`);
      }
    }
  }
}

/** Same names, kinds, parents, colours; numbers within `tol` (Blender keeps float32 meshes). Rotations compared as rotations, not Euler triples. */
function assertSameScene(a: SceneSnapshot, b: SceneSnapshot, tol: number, what: string): void {
  assert.deepEqual(
    b.nodes.map((n) => [n.name, n.kind, n.parent, n.color ?? null]),
    a.nodes.map((n) => [n.name, n.kind, n.parent, n.color ?? null]),
    what,
  );
  a.nodes.forEach((na, i) => {
    const nb = b.nodes[i]!;
    for (const f of ["position", "scale", "dimensions", "center"] as const) {
      for (const [k, x] of na[f]!.entries())
        assert.ok(Math.abs(x - nb[f]![k]!) < tol, `${what}: ${na.name}.${f} ${JSON.stringify(na[f])} vs ${JSON.stringify(nb[f])}`);
    }
    for (const f of ["min", "max"] as const) {
      for (const [k, x] of na.bbox[f].entries())
        assert.ok(
          Math.abs(x - nb.bbox[f][k]!) < tol,
          `${what}: ${na.name}.bbox.${f} ${JSON.stringify(na.bbox[f])} vs ${JSON.stringify(nb.bbox[f])}`,
        );
    }
    const ra = rotationMatrix(na.rotation);
    const rb = rotationMatrix(nb.rotation);
    for (const [k, x] of ra.entries())
      assert.ok(
        Math.abs(x - rb[k]!) < tol,
        `${what}: ${na.name}.rotation ${JSON.stringify(na.rotation)} vs ${JSON.stringify(nb.rotation)}`,
      );
  });
}

function rotationMatrix(deg: number[]): number[] {
  const [a, b, c] = deg.map((d) => (d * Math.PI) / 180) as [number, number, number];
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a), Math.sin(a), Math.cos(b), Math.sin(b), Math.cos(c), Math.sin(c)];
  return [
    cc * cb,
    sc * cb,
    -sb,
    cc * sb * sa - sc * ca,
    sc * sb * sa + cc * ca,
    cb * sa,
    cc * sb * ca + sc * sa,
    sc * sb * ca - cc * sa,
    cb * ca,
  ];
}

describe("scene tools: one semantics table, two backends", () => {
  let builtin: Array<{ row: Row; r: ToolResult }> = [];
  const providers: SandboxProvider[] = [];
  after(async () => {
    for (const p of providers) await p.shutdown();
  });

  test("builtin backend: every step does what the table says", async () => {
    const env = loadSceneEnv("scene3d-tabletop");
    builtin = await play(env, async () => {
      throw new Error("the builtin backend must not ask for a sandbox");
    });
    checkRowOutcomes(builtin);
    const last = builtin.at(-1)!.r;
    assert.deepEqual(
      last.artifacts!.scene!.nodes.map((n) => n.name),
      ["can", "cup", "floor", "ring", "table", "vase"],
    );
    assert.match(text(last), /"name":"ring","kind":"torus"/);
  });

  for (const backend of ["process", "docker"] as const) {
    test(`blender backend (${backend} sandbox): same outcomes, same snapshots within 1e-3`, {
      skip: blenderSandboxSkip(backend),
    }, async () => {
      const env = loadSceneEnv("scene3d-blender");
      const provider = await createSandboxProvider({ backend });
      providers.push(provider);
      let sb: Sandbox | undefined;
      const results = await play(env, async () => {
        sb ??= await provider.acquire(sandboxRequest(env));
        return sb;
      });
      await sb?.close();
      checkRowOutcomes(results);
      assert.equal(results.length, builtin.length, "the builtin test ran first");
      for (const [i, { row, r }] of results.entries())
        assertSameScene(builtin[i]!.r.artifacts!.scene!, r.artifacts!.scene!, 1e-3, `step ${i} ${row.tool}`);
      const glb = results.at(-1)!.r.artifacts!.scene!.gltf;
      assert.ok(glb && Buffer.from(glb, "base64").subarray(0, 4).toString("latin1") === "glTF", "Blender exports a GLB with each snapshot");
    });
  }
});

/**
 * Scene3d benchmarks. Run: npx tsx test/bench/scene3d.ts [--objects 1000] [--steps 20] [--no-blender] [--sandbox process|docker]
 *
 * 1. Builtin backend, N-object scene: step latency (add_object, update_object with a
 *    snapshot, as the tools do), and every check kind evaluated on the scene (goal: all
 *    under 50 ms for N = 1,000). Baseline in the same run: no_overlap with the naive
 *    all-pairs SAT instead of the sweep-and-prune broad phase.
 * 2. Blender (when installed): a step on the kept-alive server against a fresh
 *    `blender -b` per step, both through the same process sandbox (goal: ≥ 20×).
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { BlenderBackend } from "../../src/core/domains/scene3d/blender/blender-backend";
import { BuiltinBackend } from "../../src/core/domains/scene3d/builtin-backend";
import { parseChecks } from "../../src/core/domains/scene3d/checks/check-spec";
import { SceneChecker } from "../../src/core/domains/scene3d/checks/evaluate";
import { obbOf, penetrationDepth } from "../../src/core/domains/scene3d/checks/obb";
import type { AddObjectArgs } from "../../src/core/domains/scene3d/tool-args";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SceneNode } from "../../src/core/schema/trajectory";
import { numArg } from "./options";

const N = numArg("objects", 1000);
const STEPS = numArg("steps", 20);
const KINDS = ["box", "sphere", "cylinder", "cone", "torus"] as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** N objects on a cubic grid 1 m apart, sizes and turns varied, none touching. */
function objectSpec(i: number): AddObjectArgs {
  const side = Math.ceil(Math.cbrt(N));
  const [x, y, z] = [i % side, Math.floor(i / side) % side, Math.floor(i / side / side)];
  return {
    name: `o${i}`,
    kind: KINDS[i % KINDS.length]!,
    position: [x, y, z + 0.5],
    rotation: [0, 0, (i * 37) % 360],
    dimensions: [0.4, 0.3, 0.5],
    color: i % 2 ? "red" : "blue",
  };
}

function naiveNoOverlap(nodes: readonly SceneNode[]): number {
  const boxes = nodes.map(obbOf);
  let hits = 0;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) if (penetrationDepth(boxes[i]!, boxes[j]!) > 0.005) hits++;
  return hits;
}

async function builtinBench(): Promise<void> {
  const b = new BuiltinBackend();
  const addMs: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await b.add(objectSpec(i));
    if (i >= N - STEPS) await b.snapshot(); // the tools snapshot after every step; time that on the full scene
    addMs.push(performance.now() - t);
  }
  const updMs: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const t = performance.now();
    await b.update({ name: `o${i}`, rotation: [0, 0, i] });
    await b.snapshot();
    updMs.push(performance.now() - t);
  }
  const nodes = (await b.snapshot()).nodes;
  const names = nodes.map((n) => n.name);
  const raw = [
    { check: "exists", objects: names },
    { check: "count", kind: "sphere", color: "red", min: 1 },
    { check: "position", object: "o10", at: [0, 0, 0] },
    { check: "size", object: "o10", dimensions: [0.4, 0.3, 0.5] },
    { check: "on_top_of", object: "o100", support: "o0" },
    { check: "inside", object: "o5", container: "o6" },
    { check: "no_overlap", objects: names },
    { check: "aligned", axis: "x", objects: names.slice(0, 10) },
    { check: "distance", a: "o1", b: "o2", max: 2 },
    { check: "facing", object: "o3", target: "o4" },
    { check: "iou", target: Array.from({ length: N }, (_, i) => objectSpec(i)), voxel: 0.1, min: 0.9 },
  ];
  const { checks, problems } = parseChecks(raw);
  if (problems.length) throw new Error(JSON.stringify(problems));
  const checker = new SceneChecker(nodes);
  const tc = performance.now();
  await checker.evaluate(checks); // cold: JIT warm-up, and the iou target scene is built (then cached)
  const coldMs = performance.now() - tc;
  const per = new Map<string, number[]>();
  const totals: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (const c of checks) {
      const t = performance.now();
      await checker.one(c);
      per.set(c.check, [...(per.get(c.check) ?? []), performance.now() - t]);
    }
    totals.push(performance.now() - t0);
  }
  const report = await checker.evaluate(checks);
  const tn = performance.now();
  const naiveHits = naiveNoOverlap(nodes);
  const naiveMs = performance.now() - tn;
  const pruned = median(per.get("no_overlap")!);

  console.log(`builtin backend, ${N} objects`);
  console.log(`  step (add_object + snapshot of the full scene): median ${ms(median(addMs.slice(-STEPS)))}`);
  console.log(`  step (update_object + snapshot): median ${ms(median(updMs))}`);
  for (const [k, v] of per) console.log(`  check ${k.padEnd(10)} median ${ms(median(v))}`);
  const total = median(totals);
  console.log(
    `  all ${checks.length} checks: median ${ms(total)} (goal < 50 ms: ${total < 50 ? "met" : "NOT met"}); first run, building the ${N}-object iou target: ${ms(coldMs)}; score ${report.score.toFixed(3)}`,
  );
  console.log(
    `  no_overlap baseline, naive all-pairs SAT: ${ms(naiveMs)} (${naiveHits} overlaps) vs sweep-and-prune ${ms(pruned)}: ${(naiveMs / pruned).toFixed(0)}× faster`,
  );
}

async function blenderBench(): Promise<void> {
  try {
    execFileSync("blender", ["--version"], { stdio: "ignore", timeout: 30_000 });
  } catch {
    console.log("blender: not installed here, skipped (apt-get install -y blender python3-numpy)");
    return;
  }
  const backend =
    process.argv.includes("--sandbox") && process.argv[process.argv.indexOf("--sandbox") + 1] === "docker" ? "docker" : "process";
  const provider = await createSandboxProvider({ backend });
  const sb = await provider.acquire({
    image: "rlenv/blender:bookworm",
    workdir: "/workspace",
    limits: { cpus: 2, memoryBytes: 2 * 1024 ** 3, pids: 256, outputBytes: 50_000_000, tmpfsBytes: 256 * 1024 ** 2 },
  });
  try {
    const steps = Math.min(STEPS, 20);
    const t0 = performance.now();
    const b = await BlenderBackend.start(sb, { timeoutMs: 60_000, gltf: false });
    const startMs = performance.now() - t0;
    const kept: number[] = [];
    for (let i = 0; i < steps; i++) {
      const t = performance.now();
      await b.add(objectSpec(i));
      kept.push(performance.now() - t);
    }
    const b2 = await BlenderBackend.start(sb, { timeoutMs: 60_000, gltf: true });
    const keptGltf: number[] = [];
    for (let i = 0; i < steps; i++) {
      const t = performance.now();
      await b2.add(objectSpec(i));
      keptGltf.push(performance.now() - t);
    }
    await b.close();
    await b2.close();
    // Baseline: what a step costs without the kept-alive server: start Blender, add the object, print the node, quit.
    const fresh: number[] = [];
    const freshSteps = Math.min(steps, 5);
    for (let i = 0; i < freshSteps; i++) {
      const o = objectSpec(i);
      const py = `import bpy, json\nfor ob in list(bpy.data.objects): bpy.data.objects.remove(ob)\nbpy.ops.mesh.primitive_cube_add(size=1, location=${JSON.stringify(o.position)})\nob = bpy.context.active_object\nob.name = ${JSON.stringify(o.name)}\nob.scale = ${JSON.stringify(o.dimensions)}\nprint(json.dumps({"name": ob.name, "dimensions": list(ob.dimensions)}))`;
      const t = performance.now();
      const r = await sb.exec(["sh", "-c", 'HOME=/tmp exec blender -b --factory-startup -noaudio --python-expr "$0"', py], {
        timeoutMs: 120_000,
      });
      fresh.push(performance.now() - t);
      if (r.status !== "ok" || r.exitCode !== 0) throw new Error(`fresh blender failed: ${r.stderr.slice(-500)}`);
    }
    const k = median(kept);
    const f = median(fresh);
    console.log(`blender (${backend} sandbox), ${steps} steps`);
    console.log(`  server start-up: ${ms(startMs)}`);
    console.log(`  kept-alive step (add_object + snapshot): median ${ms(k)}; with a GLB export each step: median ${ms(median(keptGltf))}`);
    console.log(`  baseline, fresh blender -b per step: median ${ms(f)} over ${freshSteps}`);
    console.log(
      `  speed-up: ${(f / k).toFixed(1)}× (goal ≥ 20×: ${f / k >= 20 ? "met" : "NOT met"}); with GLB export ${(f / median(keptGltf)).toFixed(1)}×`,
    );
  } finally {
    await sb.close();
    await provider.shutdown();
  }
}

async function main(): Promise<void> {
  // Absolute times mean little on a busy machine; the ratios are measured in the same run.
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} CPUs`,
  );
  await builtinBench();
  if (!process.argv.includes("--no-blender")) await blenderBench();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

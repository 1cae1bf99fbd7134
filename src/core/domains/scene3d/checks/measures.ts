import type { SceneNode } from "../../../schema/trajectory";
import { colorMatches, type Vec3 } from "../shapes";
import type { SceneCheck } from "./check-spec";
import { footprintOverlap } from "./footprint";
import { corners, dot, norm, obbOf, outsideDistance, penetrationDepth, rotationAxes, sub } from "./obb";
import { targetScene } from "./target-scene";
import { voxelIou } from "./voxels";

/** What one check measured: whether it passed, the figures, and a sentence saying why. */
export interface Measured {
  passed: boolean;
  measured: unknown;
  reason: string;
}

/** The scene a check measures: its objects, by name (an unknown name throws, failing the check with that reason). */
export interface SceneView {
  readonly nodes: readonly SceneNode[];
  has(name: string): boolean;
  node(name: string): SceneNode;
  /** The named objects and everything below them in the hierarchy. */
  withDescendants(names: readonly string[]): SceneNode[];
}

type Measure<K extends SceneCheck["check"]> = (s: SceneView, c: Extract<SceneCheck, { check: K }>) => Measured | Promise<Measured>;

const AXIS = { x: 0, y: 1, z: 2 } as const;
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const fmt = (v: readonly number[]) => `[${v.map(r4).join(", ")}]`;

/** Sweep and prune on the x extent of the bounding boxes, then the exact oriented-box test. */
function noOverlap(ns: SceneNode[], tolerance: number): Measured {
  const boxes = ns.filter((n) => n.kind !== "empty").map((n) => ({ n, obb: obbOf(n) }));
  boxes.sort((p, q) => p.n.bbox.min[0] - q.n.bbox.min[0]);
  const overlaps: Array<{ a: string; b: string; depth: number }> = [];
  for (let i = 0; i < boxes.length; i++) {
    const A = boxes[i]!;
    for (let j = i + 1; j < boxes.length; j++) {
      const B = boxes[j]!;
      if (B.n.bbox.min[0] > A.n.bbox.max[0] + tolerance) break;
      if (B.n.bbox.min[1] > A.n.bbox.max[1] || A.n.bbox.min[1] > B.n.bbox.max[1]) continue;
      if (B.n.bbox.min[2] > A.n.bbox.max[2] || A.n.bbox.min[2] > B.n.bbox.max[2]) continue;
      const depth = penetrationDepth(A.obb, B.obb);
      if (depth > tolerance) overlaps.push({ a: A.n.name, b: B.n.name, depth: r4(depth) });
    }
  }
  const worst = overlaps.reduce((m, o) => Math.max(m, o.depth), 0);
  return {
    passed: overlaps.length === 0,
    measured: { overlaps, worst },
    reason: overlaps.length
      ? `${overlaps.length} overlapping pair(s), e.g. '${overlaps[0]!.a}' and '${overlaps[0]!.b}' by ${overlaps[0]!.depth}`
      : "no pair interpenetrates",
  };
}

/** One measurement per kind of check; a kind without one does not typecheck. */
export const MEASURES: { [K in SceneCheck["check"]]: Measure<K> } = {
  exists(s, c) {
    const missing = c.objects.filter((n) => !s.has(n));
    return {
      passed: missing.length === 0,
      measured: { missing },
      reason: missing.length ? `missing: ${missing.join(", ")}` : "all present",
    };
  },
  count(s, c) {
    const n = s.nodes.filter(
      (x) =>
        (c.kind === undefined || x.kind === c.kind) &&
        (c.color === undefined || colorMatches(x.color, c.color)) &&
        (c.name_prefix === undefined || x.name.startsWith(c.name_prefix)),
    ).length;
    const ok = (c.equals === undefined || n === c.equals) && (c.min === undefined || n >= c.min) && (c.max === undefined || n <= c.max);
    return { passed: ok, measured: n, reason: `counted ${n}` };
  },
  position(s, c) {
    const p = s.node(c.object).position;
    let sq = 0;
    c.at.forEach((v, i) => {
      if (v !== null) sq += (p[i]! - v) ** 2;
    });
    const d = Math.sqrt(sq);
    return {
      passed: d <= c.tolerance,
      measured: { position: p, distance: r4(d) },
      reason: `at ${fmt(p)}, ${r4(d)} from the target (tolerance ${c.tolerance})`,
    };
  },
  size(s, c) {
    const dims = s.node(c.object).dimensions;
    let worst = 0;
    c.dimensions.forEach((v, i) => {
      if (v !== null) worst = Math.max(worst, Math.abs(dims[i]! - v));
    });
    return {
      passed: worst <= c.tolerance,
      measured: { dimensions: dims, error: r4(worst) },
      reason: `size ${fmt(dims)}, off by ${r4(worst)} (tolerance ${c.tolerance})`,
    };
  },
  on_top_of(s, c) {
    const a = s.node(c.object);
    const b = s.node(c.support);
    const gap = a.bbox.min[2] - b.bbox.max[2];
    const overlap = footprintOverlap(obbOf(a), obbOf(b));
    const passed = Math.abs(gap) <= c.tolerance && overlap >= c.min_overlap;
    return {
      passed,
      measured: { gap: r4(gap), overlap: r4(overlap) },
      reason: `gap ${r4(gap)} (tolerance ${c.tolerance}), ${Math.round(overlap * 100)}% of the footprint over '${c.support}' (need ${Math.round(c.min_overlap * 100)}%)`,
    };
  },
  inside(s, c) {
    const inner = obbOf(s.node(c.object));
    const outer = obbOf(s.node(c.container));
    const out = Math.max(0, ...corners(inner).map((p) => outsideDistance(outer, p)));
    return {
      passed: out <= c.tolerance,
      measured: { outside: r4(out) },
      reason: `sticks out by ${r4(out)} (tolerance ${c.tolerance})`,
    };
  },
  no_overlap: (s, c) =>
    noOverlap(
      c.objects.map((n) => s.node(n)),
      c.tolerance,
    ),
  aligned(s, c) {
    const ns = c.objects.map((n) => s.node(n));
    const compare = c.compare ?? (c.axis === "z" ? (["x", "y"] as const) : c.axis === "x" ? (["y"] as const) : (["x"] as const));
    let spread = 0;
    for (const ax of compare) {
      const vs = ns.map((n) => (n.center ?? n.position)[AXIS[ax]]);
      spread = Math.max(spread, Math.max(...vs) - Math.min(...vs));
    }
    return {
      passed: spread <= c.tolerance,
      measured: { spread: r4(spread) },
      reason: `centres spread ${r4(spread)} on ${compare.join(", ")} (tolerance ${c.tolerance})`,
    };
  },
  distance(s, c) {
    const pa = s.node(c.a).center ?? s.node(c.a).position;
    const pb = s.node(c.b).center ?? s.node(c.b).position;
    const d = c.horizontal ? Math.hypot(pa[0] - pb[0], pa[1] - pb[1]) : norm(sub(pa, pb));
    const passed = (c.min === undefined || d >= c.min) && (c.max === undefined || d <= c.max);
    return { passed, measured: r4(d), reason: `distance ${r4(d)}, wanted ${c.min ?? 0}…${c.max ?? "∞"}` };
  },
  facing(s, c) {
    const a = s.node(c.object);
    const b = s.node(c.target);
    const axes = rotationAxes(a.rotation);
    const sign = c.forward.startsWith("-") ? -1 : 1;
    const f = axes[AXIS[c.forward.slice(-1) as "x" | "y" | "z"]];
    const fwd: Vec3 = [f[0] * sign, f[1] * sign, f[2] * sign];
    const to = sub(b.center ?? b.position, a.center ?? a.position);
    if (c.horizontal) {
      fwd[2] = 0;
      to[2] = 0;
    }
    const denom = norm(fwd) * norm(to);
    const angle = denom < 1e-9 ? 180 : (Math.acos(Math.max(-1, Math.min(1, dot(fwd, to) / denom))) * 180) / Math.PI;
    return {
      passed: angle <= c.tolerance,
      measured: { angle: r4(angle) },
      reason: `front is ${r4(angle)}° off the direction to '${c.target}' (tolerance ${c.tolerance}°)`,
    };
  },
  orientation(s, c) {
    const a = s.node(c.object);
    const local = rotationAxes(a.rotation)[AXIS[c.axis.slice(-1) as "x" | "y" | "z"]];
    const sign = c.axis.startsWith("-") ? -1 : 1;
    const world: Vec3 = [0, 0, 0];
    world[AXIS[c.along.slice(-1) as "x" | "y" | "z"]] = c.along.startsWith("-") ? -1 : 1;
    const cos = (sign * dot(local, world)) / Math.max(1e-9, norm(local));
    const signed = (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;
    // End-to-end symmetric: pointing against the direction is the same shape as pointing along it.
    const angle = c.either_direction ? Math.min(signed, 180 - signed) : signed;
    const off = c.either_direction ? `world ±${c.along.replace(/^-/, "")}` : `world ${c.along}`;
    return {
      passed: angle <= c.tolerance,
      measured: { angle: r4(angle) },
      reason: `its ${c.axis} axis is ${r4(angle)}° off ${off} (tolerance ${c.tolerance}°)`,
    };
  },
  parent(s, c) {
    const a = s.node(c.object);
    return {
      passed: a.parent === c.parent,
      measured: { parent: a.parent },
      reason: `its parent is ${a.parent === null ? "none" : `'${a.parent}'`} (want ${c.parent === null ? "none" : `'${c.parent}'`})`,
    };
  },
  async iou(s, c) {
    const targetNodes = await targetScene(c.target);
    const mine = c.objects ? s.withDescendants(c.objects) : [...s.nodes];
    const r = voxelIou(mine, targetNodes, c.voxel);
    return {
      passed: r.iou >= c.min,
      measured: { iou: r4(r.iou), voxel: r.voxel },
      reason: `IoU ${r4(r.iou)} against the target (need ${c.min})`,
    };
  },
};

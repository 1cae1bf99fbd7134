import type { SceneNode } from "../../../schema/trajectory";
import { BuiltinBackend } from "../builtin-backend";
import { colorMatches, type Vec3 } from "../shapes";
import type { SceneCheck } from "./check-spec";
import { footprintOverlap } from "./footprint";
import { corners, dot, norm, obbOf, outsideDistance, penetrationDepth, rotationAxes, sub } from "./obb";
import { voxelIou } from "./voxels";

/** One check's outcome: what was measured, so the viewer can mark the failing objects. */
export interface CheckResult {
  check: SceneCheck["check"];
  label: string;
  weight: number;
  passed: boolean;
  measured: unknown;
  reason: string;
  /** Objects the check is about, for highlighting. */
  objects: string[];
}

export interface CheckReport {
  /** Weighted fraction of checks passed, in [0, 1]; 0 with no checks. */
  score: number;
  results: CheckResult[];
}

const AXIS = { x: 0, y: 1, z: 2 } as const;
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const fmt = (v: readonly number[]) => `[${v.map(r4).join(", ")}]`;

class Missing extends Error {}

/** Checks over one scene snapshot. Pure: the same nodes give the same report. */
export class SceneChecker {
  private readonly byName: Map<string, SceneNode>;
  constructor(private readonly nodes: readonly SceneNode[]) {
    this.byName = new Map(nodes.map((n) => [n.name, n]));
  }

  private node(name: string): SceneNode {
    const n = this.byName.get(name);
    if (!n) throw new Missing(`no object named '${name}'`);
    return n;
  }

  async evaluate(checks: readonly SceneCheck[]): Promise<CheckReport> {
    const results: CheckResult[] = [];
    for (const c of checks) results.push(await this.one(c));
    const total = results.reduce((s, r) => s + r.weight, 0);
    const got = results.reduce((s, r) => s + (r.passed ? r.weight : 0), 0);
    return { score: total > 0 ? got / total : 0, results };
  }

  async one(c: SceneCheck): Promise<CheckResult> {
    const objects = objectsOf(c);
    const label = c.label ?? describe(c);
    try {
      const { passed, measured, reason } = await this.measure(c);
      return { check: c.check, label, weight: c.weight, passed, measured, reason, objects };
    } catch (e) {
      if (!(e instanceof Missing)) throw e;
      return { check: c.check, label, weight: c.weight, passed: false, measured: null, reason: e.message, objects };
    }
  }

  private async measure(c: SceneCheck): Promise<{ passed: boolean; measured: unknown; reason: string }> {
    switch (c.check) {
      case "exists": {
        const missing = c.objects.filter((n) => !this.byName.has(n));
        return {
          passed: missing.length === 0,
          measured: { missing },
          reason: missing.length ? `missing: ${missing.join(", ")}` : "all present",
        };
      }
      case "count": {
        const n = this.nodes.filter(
          (x) =>
            (c.kind === undefined || x.kind === c.kind) &&
            (c.color === undefined || colorMatches(x.color, c.color)) &&
            (c.name_prefix === undefined || x.name.startsWith(c.name_prefix)),
        ).length;
        const ok = (c.equals === undefined || n === c.equals) && (c.min === undefined || n >= c.min) && (c.max === undefined || n <= c.max);
        return { passed: ok, measured: n, reason: `counted ${n}` };
      }
      case "position": {
        const p = this.node(c.object).position;
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
      }
      case "size": {
        const dims = this.node(c.object).dimensions;
        let worst = 0;
        c.dimensions.forEach((v, i) => {
          if (v !== null) worst = Math.max(worst, Math.abs(dims[i]! - v));
        });
        return {
          passed: worst <= c.tolerance,
          measured: { dimensions: dims, error: r4(worst) },
          reason: `size ${fmt(dims)}, off by ${r4(worst)} (tolerance ${c.tolerance})`,
        };
      }
      case "on_top_of": {
        const a = this.node(c.object);
        const b = this.node(c.support);
        const gap = a.bbox.min[2] - b.bbox.max[2];
        const overlap = footprintOverlap(obbOf(a), obbOf(b));
        const passed = Math.abs(gap) <= c.tolerance && overlap >= c.min_overlap;
        return {
          passed,
          measured: { gap: r4(gap), overlap: r4(overlap) },
          reason: `gap ${r4(gap)} (tolerance ${c.tolerance}), ${Math.round(overlap * 100)}% of the footprint over '${c.support}' (need ${Math.round(c.min_overlap * 100)}%)`,
        };
      }
      case "inside": {
        const inner = obbOf(this.node(c.object));
        const outer = obbOf(this.node(c.container));
        const out = Math.max(0, ...corners(inner).map((p) => outsideDistance(outer, p)));
        return {
          passed: out <= c.tolerance,
          measured: { outside: r4(out) },
          reason: `sticks out by ${r4(out)} (tolerance ${c.tolerance})`,
        };
      }
      case "no_overlap":
        return this.noOverlap(
          c.objects.map((n) => this.node(n)),
          c.tolerance,
        );
      case "aligned": {
        const ns = c.objects.map((n) => this.node(n));
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
      }
      case "distance": {
        const pa = this.node(c.a).center ?? this.node(c.a).position;
        const pb = this.node(c.b).center ?? this.node(c.b).position;
        const d = c.horizontal ? Math.hypot(pa[0] - pb[0], pa[1] - pb[1]) : norm(sub(pa, pb));
        const passed = (c.min === undefined || d >= c.min) && (c.max === undefined || d <= c.max);
        return { passed, measured: r4(d), reason: `distance ${r4(d)}, wanted ${c.min ?? 0}…${c.max ?? "∞"}` };
      }
      case "facing": {
        const a = this.node(c.object);
        const b = this.node(c.target);
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
      }
      case "orientation": {
        const a = this.node(c.object);
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
      }
      case "parent": {
        const a = this.node(c.object);
        return {
          passed: a.parent === c.parent,
          measured: { parent: a.parent },
          reason: `its parent is ${a.parent === null ? "none" : `'${a.parent}'`} (want ${c.parent === null ? "none" : `'${c.parent}'`})`,
        };
      }
      case "iou": {
        const targetNodes = await targetScene(c.target);
        const mine = c.objects ? this.withDescendants(c.objects) : [...this.nodes];
        const r = voxelIou(mine, targetNodes, c.voxel);
        return {
          passed: r.iou >= c.min,
          measured: { iou: r4(r.iou), voxel: r.voxel },
          reason: `IoU ${r4(r.iou)} against the target (need ${c.min})`,
        };
      }
    }
  }

  private withDescendants(names: readonly string[]): SceneNode[] {
    const keep = new Set(names.map((n) => this.node(n).name));
    let grew = true;
    while (grew) {
      grew = false;
      for (const n of this.nodes) {
        if (n.parent && keep.has(n.parent) && !keep.has(n.name)) {
          keep.add(n.name);
          grew = true;
        }
      }
    }
    return this.nodes.filter((n) => keep.has(n.name));
  }

  /** Sweep and prune on the x extent of the bounding boxes, then the exact oriented-box test. */
  private noOverlap(ns: SceneNode[], tolerance: number): { passed: boolean; measured: unknown; reason: string } {
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
}

/**
 * Target scenes built from their add_object specs, by content: every sample of a task
 * grades against the same target, so it is built once (a few most recent kept).
 */
const targetCache = new Map<string, SceneNode[]>();
const TARGET_CACHE_SIZE = 16;

async function targetScene(specs: Extract<SceneCheck, { check: "iou" }>["target"]): Promise<SceneNode[]> {
  const key = JSON.stringify(specs);
  const hit = targetCache.get(key);
  if (hit) return hit;
  const target = new BuiltinBackend();
  try {
    for (const spec of specs) await target.add(spec);
  } catch (e) {
    throw new Error(`the iou check's target scene is invalid: ${(e as Error).message}`);
  }
  const nodes = (await target.snapshot()).nodes;
  targetCache.set(key, nodes);
  if (targetCache.size > TARGET_CACHE_SIZE) targetCache.delete(targetCache.keys().next().value!);
  return nodes;
}

function objectsOf(c: SceneCheck): string[] {
  switch (c.check) {
    case "exists":
    case "no_overlap":
    case "aligned":
      return c.objects;
    case "count":
    case "iou":
      return c.check === "iou" ? (c.objects ?? []) : [];
    case "position":
    case "size":
    case "orientation":
      return [c.object];
    case "parent":
      return c.parent === null ? [c.object] : [c.object, c.parent];
    case "on_top_of":
      return [c.object, c.support];
    case "inside":
      return [c.object, c.container];
    case "distance":
      return [c.a, c.b];
    case "facing":
      return [c.object, c.target];
  }
}

function describe(c: SceneCheck): string {
  switch (c.check) {
    case "exists":
      return `exists ${c.objects.join(", ")}`;
    case "count":
      return `count ${[c.kind, c.color, c.name_prefix && `${c.name_prefix}*`].filter(Boolean).join(" ") || "objects"} ${c.equals !== undefined ? `= ${c.equals}` : `in ${c.min ?? 0}…${c.max ?? "∞"}`}`;
    case "position":
      return `${c.object} at [${c.at.map((v) => (v === null ? "*" : v)).join(", ")}]`;
    case "size":
      return `${c.object} size [${c.dimensions.map((v) => (v === null ? "*" : v)).join(", ")}]`;
    case "on_top_of":
      return `${c.object} on top of ${c.support}`;
    case "inside":
      return `${c.object} inside ${c.container}`;
    case "no_overlap":
      return `no overlap among ${c.objects.join(", ")}`;
    case "aligned":
      return `${c.objects.join(", ")} aligned along ${c.axis}`;
    case "distance":
      return `distance ${c.a}–${c.b} in ${c.min ?? 0}…${c.max ?? "∞"}`;
    case "facing":
      return `${c.object} faces ${c.target}`;
    case "orientation":
      return `${c.object}'s ${c.axis} along ${c.either_direction ? `±${c.along.replace(/^-/, "")}` : c.along}`;
    case "parent":
      return `${c.object} is a child of ${c.parent ?? "nothing"}`;
    case "iou":
      return `IoU with the target ≥ ${c.min}`;
  }
}

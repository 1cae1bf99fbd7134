import type { SceneNode } from "../../../schema/trajectory";
import type { SceneCheck } from "./check-spec";
import { MEASURES, type Measured, type SceneView } from "./measures";

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

class Missing extends Error {}

/** Checks over one scene snapshot. Pure: the same nodes give the same report. */
export class SceneChecker implements SceneView {
  private readonly byName: Map<string, SceneNode>;
  constructor(readonly nodes: readonly SceneNode[]) {
    this.byName = new Map(nodes.map((n) => [n.name, n]));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  node(name: string): SceneNode {
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

  /** What one check measures, by its kind (measures.ts has one function per kind). */
  private async measure(c: SceneCheck): Promise<Measured> {
    const m = MEASURES[c.check] as (s: SceneView, c: SceneCheck) => Measured | Promise<Measured>;
    return m(this, c);
  }

  /** The named objects and everything below them in the hierarchy. */
  withDescendants(names: readonly string[]): SceneNode[] {
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

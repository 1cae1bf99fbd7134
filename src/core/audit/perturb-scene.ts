import type { ToolCallSpec } from "../schema/task";

/**
 * Wrong scenes derived from a scene task's reference tool calls: one object moved by twice
 * the tolerance of the check that places it, moved by its own size, removed, or turned by
 * 90°. Each must score below the reference. A change that leaves the scene the same (a
 * cylinder turned about its axis) is counted equivalent rather than played.
 */
export interface SceneVariant {
  operator: string;
  object: string;
  description: string;
  calls: ToolCallSpec[];
  equivalent?: boolean;
}

type Check = Record<string, unknown>;
type Vec3 = [number, number, number];

const vec = (v: unknown, fallback: Vec3): Vec3 =>
  Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === "number") ? (v as Vec3) : fallback;

function names(c: Check): string[] {
  const out: string[] = [];
  for (const k of ["object", "a", "b", "support", "container", "target"]) if (typeof c[k] === "string") out.push(c[k] as string);
  if (Array.isArray(c.objects)) out.push(...c.objects.filter((x): x is string => typeof x === "string"));
  return out;
}

/** Which axis a check constrains for this object and how tightly: the first constrained axis of a position check, else z for on_top_of. */
function placement(object: string, checks: Check[]): { axis: 0 | 1 | 2; tolerance: number; check: string } | null {
  for (const c of checks) {
    if (c.check === "position" && c.object === object && Array.isArray(c.at)) {
      const axis = c.at.findIndex((x) => typeof x === "number");
      if (axis >= 0) return { axis: axis as 0 | 1 | 2, tolerance: typeof c.tolerance === "number" ? c.tolerance : 0.05, check: "position" };
    }
  }
  for (const c of checks) {
    if (c.check === "on_top_of" && c.object === object)
      return { axis: 2, tolerance: typeof c.tolerance === "number" ? c.tolerance : 0.02, check: "on_top_of" };
  }
  return null;
}

function moved(calls: ToolCallSpec[], index: number, axis: 0 | 1 | 2, by: number): ToolCallSpec[] {
  return calls.map((c, i) => {
    if (i !== index) return c;
    const p = [...vec(c.arguments.position, [0, 0, 0])] as Vec3;
    p[axis] += by;
    return { ...c, arguments: { ...c.arguments, position: p } };
  });
}

/** Rotation about z that changes nothing: round about their axis, or square boxes nothing faces. */
function symmetricAboutZ(kind: unknown, dims: Vec3, faced: boolean): boolean {
  // An asset's shape is unknown here (a vase, a bowl: round more often than not), so it is tipped over instead.
  if (kind === "sphere" || kind === "cylinder" || kind === "cone" || kind === "torus" || kind === "asset") return true;
  return !faced && Math.abs(dims[0] - dims[1]) < 1e-9 && (kind === "box" || kind === "cube");
}

export function sceneVariants(calls: ToolCallSpec[], checks: Check[]): SceneVariant[] {
  const out: SceneVariant[] = [];
  const named = new Set(checks.flatMap(names));
  calls.forEach((call, index) => {
    const name = call.arguments.name;
    if (call.name !== "add_object" || typeof name !== "string" || !named.has(name)) return;
    const dims = vec(call.arguments.dimensions, [1, 1, 1]);
    const where = placement(name, checks);
    if (where) {
      const axisName = "xyz"[where.axis];
      out.push({
        operator: "move-2x-tolerance",
        object: name,
        description: `${name} moved ${2 * where.tolerance} along ${axisName} (twice its ${where.check} tolerance)`,
        calls: moved(calls, index, where.axis, 2 * where.tolerance),
      });
      const size = Math.max(0.25, ...dims);
      if (Math.abs(size - 2 * where.tolerance) > 1e-9)
        out.push({
          operator: "move-own-size",
          object: name,
          description: `${name} moved ${size} along ${axisName} (its own size)`,
          calls: moved(calls, index, where.axis, size),
        });
    }
    out.push({
      operator: "remove",
      object: name,
      description: `${name} left out`,
      calls: calls.filter((c, i) => i !== index && c.arguments.name !== name && c.arguments.object !== name),
    });
    const faced = checks.some((c) => c.check === "facing" && c.object === name);
    const rot = vec(call.arguments.rotation, [0, 0, 0]);
    if (symmetricAboutZ(call.arguments.kind, dims, faced)) {
      const tips = call.arguments.kind !== "sphere" && !(dims[0] === dims[1] && dims[1] === dims[2]);
      if (tips) {
        out.push({
          operator: "rotate-90",
          object: name,
          description: `${name} tipped over (rotation x + 90°)`,
          calls: calls.map((c, i) => (i === index ? { ...c, arguments: { ...c.arguments, rotation: [rot[0] + 90, rot[1], rot[2]] } } : c)),
        });
      } else {
        out.push({ operator: "rotate-90", object: name, description: `${name} turned 90° (it looks the same)`, calls, equivalent: true });
      }
    } else {
      out.push({
        operator: "rotate-90",
        object: name,
        description: `${name} turned 90° about z`,
        calls: calls.map((c, i) => (i === index ? { ...c, arguments: { ...c.arguments, rotation: [rot[0], rot[1], rot[2] + 90] } } : c)),
      });
    }
  });
  return out;
}

import type { ToolCallSpec } from "../schema/task";

/**
 * Wrong scenes derived from a scene task's reference tool calls: one object moved by twice
 * the tolerance of the check that places it, moved by its own size, removed, or turned by
 * 90°, given another parent. Each must score below the reference. A change that leaves the scene the same (a
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

/**
 * The object given another parent: an add_object's parent swapped for another group or
 * object of the scene (its local transform kept, as the tool does), or a group member left
 * out of its group and put in another group where there is one (it stays where it is in
 * the world, so only a check of the hierarchy, or a later move of the group, notices).
 */
function parentSwaps(calls: ToolCallSpec[], named: Set<string>): SceneVariant[] {
  const out: SceneVariant[] = [];
  const groups = calls.flatMap((c) => (c.name === "group" && typeof c.arguments.name === "string" ? [c.arguments.name] : []));
  calls.forEach((call, index) => {
    if (call.name === "add_object" && typeof call.arguments.parent === "string" && typeof call.arguments.name === "string") {
      const name = call.arguments.name;
      const was = call.arguments.parent;
      if (!named.has(name) && !named.has(was)) return;
      // Another parent made before this object (a later one does not exist yet when it is added).
      const before = calls.slice(0, index).flatMap((c) => (typeof c.arguments.name === "string" ? [c.arguments.name] : []));
      const other = before.find((n) => n !== was && n !== name);
      const args = { ...call.arguments };
      if (other) args.parent = other;
      else delete args.parent;
      out.push({
        operator: "parent-swap",
        object: name,
        description: other ? `${name} parented to ${other} instead of ${was}` : `${name} not parented to ${was}`,
        calls: calls.map((c, i) => (i === index ? { ...c, arguments: args } : c)),
      });
    }
    if (call.name === "group" && typeof call.arguments.name === "string" && Array.isArray(call.arguments.objects)) {
      const group = call.arguments.name;
      const members = call.arguments.objects.filter((m): m is string => typeof m === "string");
      const member = members.find((m) => named.has(m)) ?? (named.has(group) ? members[0] : undefined);
      if (!member) return;
      const elsewhere = groups.find((g) => g !== group);
      const target = elsewhere ? calls.findIndex((c) => c.name === "group" && c.arguments.name === elsewhere) : -1;
      const swapped = calls.map((c, i) => {
        if (i === index) return { ...c, arguments: { ...c.arguments, objects: members.filter((m) => m !== member) } };
        if (i === target && Array.isArray(c.arguments.objects))
          return { ...c, arguments: { ...c.arguments, objects: [...c.arguments.objects, member] } };
        return c;
      });
      // A group of one member left empty would change the object count as well; the swap is then not a pure hierarchy change, but still wrong.
      out.push({
        operator: "parent-swap",
        object: member,
        description: elsewhere ? `${member} put in group ${elsewhere} instead of ${group}` : `${member} left out of group ${group}`,
        calls: swapped,
      });
    }
  });
  return out;
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
  out.push(...parentSwaps(calls, named));
  return out;
}

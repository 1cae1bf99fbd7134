import type { SceneNode } from "../../../schema/trajectory";
import type { Vec3 } from "../shapes";

/** An oriented box in world space: centre, three unit axes, half sizes along them. */
export interface Obb {
  center: Vec3;
  axes: [Vec3, Vec3, Vec3];
  half: Vec3;
}

const DEG = Math.PI / 180;

/** Columns of Blender's Euler XYZ rotation (Rz·Ry·Rx), the local axes in world space. */
export function rotationAxes(rotationDeg: Vec3): [Vec3, Vec3, Vec3] {
  const [a, b, c] = [rotationDeg[0] * DEG, rotationDeg[1] * DEG, rotationDeg[2] * DEG];
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a), Math.sin(a), Math.cos(b), Math.sin(b), Math.cos(c), Math.sin(c)];
  return [
    [cc * cb, sc * cb, -sb],
    [cc * sb * sa - sc * ca, sc * sb * sa + cc * ca, cb * sa],
    [cc * sb * ca + sc * sa, sc * sb * ca - cc * sa, cb * ca],
  ];
}

/** The oriented box of a node; groups (empties) use their axis-aligned union box. */
export function obbOf(n: SceneNode): Obb {
  if (n.kind === "empty") {
    const { min, max } = n.bbox;
    return {
      center: [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2],
      axes: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      half: [(max[0] - min[0]) / 2, (max[1] - min[1]) / 2, (max[2] - min[2]) / 2],
    };
  }
  return {
    center: n.center ?? n.position,
    axes: rotationAxes(n.rotation),
    half: [n.dimensions[0] / 2, n.dimensions[1] / 2, n.dimensions[2] / 2],
  };
}

export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const norm = (a: Vec3): number => Math.sqrt(dot(a, a));

/** Half the box's extent when projected on a unit axis. */
function radius(b: Obb, axis: Vec3): number {
  return (
    b.half[0] * Math.abs(dot(b.axes[0], axis)) + b.half[1] * Math.abs(dot(b.axes[1], axis)) + b.half[2] * Math.abs(dot(b.axes[2], axis))
  );
}

/**
 * Separating-axis test on two oriented boxes: the smallest overlap over the 15 candidate
 * axes (3 + 3 face normals, 9 edge cross products). Positive = they interpenetrate by that
 * much; zero or negative = they touch or are apart (the gap along the separating axis).
 */
export function penetrationDepth(a: Obb, b: Obb): number {
  const d = sub(b.center, a.center);
  let best = Number.POSITIVE_INFINITY;
  const test = (axis: Vec3) => {
    const len = norm(axis);
    if (len < 1e-9) return; // parallel edges: no new axis
    const u: Vec3 = [axis[0] / len, axis[1] / len, axis[2] / len];
    const overlap = radius(a, u) + radius(b, u) - Math.abs(dot(d, u));
    if (overlap < best) best = overlap;
  };
  for (const ax of a.axes) test(ax);
  for (const ax of b.axes) test(ax);
  for (const ea of a.axes) for (const eb of b.axes) test(cross(ea, eb));
  return best;
}

/** The 8 corners of a box. */
export function corners(b: Obb): Vec3[] {
  const out: Vec3[] = [];
  for (let i = 0; i < 8; i++) {
    const s = [i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1] as const;
    const p: Vec3 = [...b.center];
    for (let k = 0; k < 3; k++) {
      const ax = b.axes[k]!;
      const h = b.half[k]! * s[k]!;
      p[0] += ax[0] * h;
      p[1] += ax[1] * h;
      p[2] += ax[2] * h;
    }
    out.push(p);
  }
  return out;
}

/** How far a point lies outside a box (0 when inside or on it), measured along the box's axes. */
export function outsideDistance(b: Obb, p: Vec3): number {
  const d = sub(p, b.center);
  let sq = 0;
  for (let k = 0; k < 3; k++) {
    const excess = Math.abs(dot(d, b.axes[k]!)) - b.half[k]!;
    if (excess > 0) sq += excess * excess;
  }
  return Math.sqrt(sq);
}

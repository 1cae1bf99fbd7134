import type { Vec3 } from "../shapes";
import { corners, type Obb } from "./obb";

type P2 = [number, number];

/** Convex hull (monotone chain), counter-clockwise. */
function hull(points: P2[]): P2[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const crossZ = (o: P2, a: P2, b: P2) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: P2[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && crossZ(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 1e-12) lower.pop();
    lower.push(p);
  }
  const upper: P2[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && crossZ(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 1e-12) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

function area(poly: P2[]): number {
  let s = 0;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(s) / 2;
}

/** Sutherland–Hodgman: the part of `subject` inside the convex counter-clockwise `clip`. */
function clipPolygon(subject: P2[], clip: P2[]): P2[] {
  let out = subject;
  for (let i = 0; i < clip.length && out.length > 0; i++) {
    const a = clip[i]!;
    const b = clip[(i + 1) % clip.length]!;
    const inside = (p: P2) => (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= -1e-12;
    const cut = (p: P2, q: P2): P2 => {
      const [x1, y1, x2, y2] = [p[0], p[1], q[0], q[1]];
      const [x3, y3, x4, y4] = [a[0], a[1], b[0], b[1]];
      const den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4);
      const t = den === 0 ? 0 : ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / den;
      return [x1 + t * (x2 - x1), y1 + t * (y2 - y1)];
    };
    const input = out;
    out = [];
    for (let j = 0; j < input.length; j++) {
      const p = input[j]!;
      const q = input[(j + 1) % input.length]!;
      if (inside(q)) {
        if (!inside(p)) out.push(cut(p, q));
        out.push(q);
      } else if (inside(p)) out.push(cut(p, q));
    }
  }
  return out;
}

/** The box's shadow on the floor (XY plane), a convex polygon. */
export function footprint(b: Obb): P2[] {
  return hull(corners(b).map((c: Vec3): P2 => [c[0], c[1]]));
}

/** Fraction of `top`'s footprint that lies over `base`'s footprint, in [0, 1]. */
export function footprintOverlap(top: Obb, base: Obb): number {
  const a = footprint(top);
  const b = footprint(base);
  const own = area(a);
  if (own < 1e-12) {
    // A flat-on-the-floor-plan object (a line or point): count its centre.
    return clipPolygon([[top.center[0], top.center[1]]], b).length > 0 ? 1 : 0;
  }
  return Math.min(1, area(clipPolygon(a, b)) / own);
}

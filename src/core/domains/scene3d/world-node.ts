import { Box3, Euler, type Matrix4, MathUtils, Quaternion, Vector3 } from "three";
import type { SceneNode } from "../../schema/trajectory";
import type { Vec3 } from "./shapes";

/** What a node is, apart from where: the local box its geometry fills. */
export interface NodeShape {
  name: string;
  kind: string;
  parent: string | null;
  /** Size along the node's own axes before scale; zero for empties. */
  extents: Vec3;
  /** Centre of that box in the node's own coordinates (non-zero only for some assets). */
  localCenter: Vec3;
  color?: string;
  material?: Record<string, unknown>;
  asset?: string;
}

/** Rounded so that float noise (and -0) never makes two equal scenes differ in the JSON. */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}
const r3 = (v: Vector3): Vec3 => [round6(v.x), round6(v.y), round6(v.z)];

/**
 * A snapshot node from a world matrix: the math both backends share (Blender's server
 * does the same with mathutils). Rotation is Blender's Euler XYZ = three's order ZYX.
 */
export function worldNode(shape: NodeShape, world: Matrix4): SceneNode {
  const pos = new Vector3();
  const quat = new Quaternion();
  const scl = new Vector3();
  world.decompose(pos, quat, scl);
  const eul = new Euler().setFromQuaternion(quat, "ZYX");
  const [ex, ey, ez] = shape.extents;
  const [cx, cy, cz] = shape.localCenter;
  const center = new Vector3(cx, cy, cz).applyMatrix4(world);
  const box = new Box3();
  if (ex === 0 && ey === 0 && ez === 0) box.expandByPoint(center);
  else {
    const p = new Vector3();
    for (let i = 0; i < 8; i++) {
      p.set(cx + (i & 1 ? ex : -ex) / 2, cy + (i & 2 ? ey : -ey) / 2, cz + (i & 4 ? ez : -ez) / 2).applyMatrix4(world);
      box.expandByPoint(p);
    }
  }
  const node: SceneNode = {
    name: shape.name,
    kind: shape.kind,
    parent: shape.parent,
    position: r3(pos),
    rotation: [round6(MathUtils.radToDeg(eul.x)), round6(MathUtils.radToDeg(eul.y)), round6(MathUtils.radToDeg(eul.z))],
    scale: r3(scl),
    dimensions: [round6(Math.abs(ex * scl.x)), round6(Math.abs(ey * scl.y)), round6(Math.abs(ez * scl.z))],
    center: r3(center),
    bbox: { min: r3(box.min), max: r3(box.max) },
  };
  if (shape.color) node.color = shape.color;
  if (shape.material && Object.keys(shape.material).length) node.material = shape.material;
  if (shape.asset) node.asset = shape.asset;
  return node;
}

/** Empties (groups) get the union of their descendants' boxes, so checks can treat a group as one thing. */
export function fillGroupBoxes(nodes: SceneNode[]): void {
  const byParent = new Map<string, SceneNode[]>();
  for (const n of nodes) if (n.parent) byParent.set(n.parent, [...(byParent.get(n.parent) ?? []), n]);
  const visit = (n: SceneNode, depth: number): SceneNode["bbox"] => {
    if (n.kind !== "empty" || depth > 256) return n.bbox;
    const kids = byParent.get(n.name) ?? [];
    if (kids.length === 0) return n.bbox;
    const min: Vec3 = [...n.bbox.min];
    const max: Vec3 = [...n.bbox.max];
    let first = true;
    for (const k of kids) {
      const b = visit(k, depth + 1);
      for (let i = 0; i < 3; i++) {
        min[i] = first ? b.min[i]! : Math.min(min[i]!, b.min[i]!);
        max[i] = first ? b.max[i]! : Math.max(max[i]!, b.max[i]!);
      }
      first = false;
    }
    n.bbox = { min, max };
    return n.bbox;
  };
  for (const n of nodes) visit(n, 0);
}

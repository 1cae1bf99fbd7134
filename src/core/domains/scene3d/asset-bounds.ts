import { readFileSync } from "node:fs";
import { Box3, Matrix4, Quaternion, Vector3 } from "three";
import { ToolError } from "../../model/errors";
import type { Vec3 } from "./shapes";

interface GltfNode {
  children?: number[];
  mesh?: number;
  matrix?: number[];
  translation?: number[];
  rotation?: number[];
  scale?: number[];
}
interface GltfJson {
  scene?: number;
  scenes?: Array<{ nodes?: number[] }>;
  nodes?: GltfNode[];
  meshes?: Array<{ primitives?: Array<{ attributes?: Record<string, number> }> }>;
  accessors?: Array<{ min?: number[]; max?: number[] }>;
}

/** glTF is Y-up, scenes here are Z-up: Blender's importer turns (x, y, z) into (x, -z, y). */
const Y_UP_TO_Z_UP = new Matrix4().set(1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1);

function readGltfJson(file: string): GltfJson {
  const buf = readFileSync(file);
  if (buf.length >= 20 && buf.readUInt32LE(0) === 0x46546c67) {
    // GLB: 12-byte header, then the JSON chunk (length, type 'JSON', data).
    const len = buf.readUInt32LE(12);
    return JSON.parse(buf.subarray(20, 20 + len).toString("utf8")) as GltfJson;
  }
  return JSON.parse(buf.toString("utf8")) as GltfJson;
}

function nodeMatrix(n: GltfNode): Matrix4 {
  if (n.matrix && n.matrix.length === 16) return new Matrix4().fromArray(n.matrix);
  const t = n.translation ?? [0, 0, 0];
  const r = n.rotation ?? [0, 0, 0, 1];
  const s = n.scale ?? [1, 1, 1];
  return new Matrix4().compose(new Vector3(t[0], t[1], t[2]), new Quaternion(r[0], r[1], r[2], r[3]), new Vector3(s[0], s[1], s[2]));
}

/**
 * The bounding box of a glTF/GLB asset in Z-up units, from the POSITION accessors'
 * min/max (the glTF spec requires them), without decoding any buffer.
 */
export function assetBounds(file: string): { center: Vec3; size: Vec3 } {
  let gltf: GltfJson;
  try {
    gltf = readGltfJson(file);
  } catch (e) {
    throw new ToolError(`cannot read asset '${file}': ${(e as Error).message}`);
  }
  const box = new Box3();
  const corner = new Vector3();
  const visit = (index: number, parent: Matrix4, depth: number) => {
    const node = gltf.nodes?.[index];
    if (!node || depth > 64) return;
    const m = parent.clone().multiply(nodeMatrix(node));
    for (const prim of gltf.meshes?.[node.mesh ?? -1]?.primitives ?? []) {
      const acc = gltf.accessors?.[prim.attributes?.POSITION ?? -1];
      if (!acc?.min || !acc.max) continue;
      for (let i = 0; i < 8; i++) {
        corner.set(i & 1 ? acc.max[0]! : acc.min[0]!, i & 2 ? acc.max[1]! : acc.min[1]!, i & 4 ? acc.max[2]! : acc.min[2]!);
        box.expandByPoint(corner.applyMatrix4(m));
      }
    }
    for (const c of node.children ?? []) visit(c, m, depth + 1);
  };
  const roots = gltf.scenes?.[gltf.scene ?? 0]?.nodes ?? [];
  for (const r of roots) visit(r, Y_UP_TO_Z_UP, 0);
  if (box.isEmpty()) throw new ToolError(`asset '${file}' has no mesh with POSITION bounds`);
  const c = box.getCenter(new Vector3());
  const s = box.getSize(new Vector3());
  return { center: [c.x, c.y, c.z], size: [s.x, s.y, s.z] };
}

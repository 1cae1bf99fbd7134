import type { SceneNode } from "../../../schema/trajectory";
import type { Vec3 } from "../shapes";
import { type Obb, obbOf } from "./obb";

/** Whether a point given in the box's own frame (offsets along its axes) lies in the node's solid. */
function insideShape(kind: string, half: Vec3, p: Vec3): boolean {
  const [hx, hy, hz] = half;
  if (Math.abs(p[0]) > hx || Math.abs(p[1]) > hy || Math.abs(p[2]) > hz) return false;
  const nx = hx > 0 ? p[0] / hx : 0;
  const ny = hy > 0 ? p[1] / hy : 0;
  const nz = hz > 0 ? p[2] / hz : 0;
  switch (kind) {
    case "sphere":
      return nx * nx + ny * ny + nz * nz <= 1;
    case "cylinder":
      return nx * nx + ny * ny <= 1;
    case "cone": {
      // Base (radius 1) at the bottom, apex at the top.
      const r = (1 - nz) / 2;
      return nx * nx + ny * ny <= r * r;
    }
    case "torus": {
      const tube = hz;
      const ring = Math.max(0, Math.min(hx, hy) - tube);
      const q = Math.hypot(nx, ny) * Math.min(hx, hy) - ring;
      return q * q + p[2] * p[2] <= tube * tube;
    }
    default:
      return true; // box, plane, asset: the box itself
  }
}

/** Grid over a fixed region, cell size `voxel`; a cell is occupied when its centre is in a solid. */
export class VoxelGrid {
  readonly n: [number, number, number];
  constructor(
    readonly min: Vec3,
    max: Vec3,
    readonly voxel: number,
  ) {
    this.n = [0, 1, 2].map((i) => Math.max(1, Math.ceil((max[i]! - min[i]!) / voxel))) as [number, number, number];
  }

  get cellCount(): number {
    return this.n[0] * this.n[1] * this.n[2];
  }

  /** One byte a cell (1 = occupied): a flat array is much faster than a Set at these sizes. */
  occupancy(nodes: readonly SceneNode[]): Uint8Array {
    const cells = new Uint8Array(this.cellCount);
    for (const node of nodes) {
      if (node.kind === "empty") continue;
      const box = obbOf(node);
      this.fill(node.kind, box, node.bbox, cells);
    }
    return cells;
  }

  private fill(kind: string, box: Obb, aabb: SceneNode["bbox"], cells: Uint8Array): void {
    const lo = [0, 1, 2].map((i) => Math.max(0, Math.floor((aabb.min[i]! - this.min[i]!) / this.voxel)));
    const hi = [0, 1, 2].map((i) => Math.min(this.n[i]! - 1, Math.floor((aabb.max[i]! - this.min[i]!) / this.voxel)));
    // The hot loop: plain numbers, no allocation per cell.
    const [ax, ay, az] = box.axes;
    const [cx, cy, cz] = box.center;
    const local: Vec3 = [0, 0, 0];
    const ny = this.n[1];
    const nz = this.n[2];
    for (let x = lo[0]!; x <= hi[0]!; x++) {
      const dx = this.min[0] + (x + 0.5) * this.voxel - cx;
      for (let y = lo[1]!; y <= hi[1]!; y++) {
        const dy = this.min[1] + (y + 0.5) * this.voxel - cy;
        const row = (x * ny + y) * nz;
        for (let z = lo[2]!; z <= hi[2]!; z++) {
          const dz = this.min[2] + (z + 0.5) * this.voxel - cz;
          local[0] = dx * ax[0] + dy * ax[1] + dz * ax[2];
          local[1] = dx * ay[0] + dy * ay[1] + dz * ay[2];
          local[2] = dx * az[0] + dy * az[1] + dz * az[2];
          if (insideShape(kind, box.half, local)) cells[row + z] = 1;
        }
      }
    }
  }
}

/** Voxelised intersection over union of two sets of nodes, on one grid covering both. */
export function voxelIou(
  a: readonly SceneNode[],
  b: readonly SceneNode[],
  voxel: number,
  maxCells = 4_000_000,
): { iou: number; voxel: number; cells: number } {
  const all = [...a, ...b].filter((n) => n.kind !== "empty");
  if (all.length === 0) return { iou: 0, voxel, cells: 0 };
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (const n of all) {
    for (let i = 0; i < 3; i++) {
      min[i] = Math.min(min[i]!, n.bbox.min[i]!);
      max[i] = Math.max(max[i]!, n.bbox.max[i]!);
    }
  }
  let size = voxel;
  let grid = new VoxelGrid(min, max, size);
  // Coarsen rather than exhaust memory on a huge region.
  while (grid.cellCount > maxCells) {
    size *= 1.5;
    grid = new VoxelGrid(min, max, size);
  }
  const ca = grid.occupancy(a);
  const cb = grid.occupancy(b);
  let inter = 0;
  let union = 0;
  for (let i = 0; i < ca.length; i++) {
    inter += ca[i]! & cb[i]!;
    union += ca[i]! | cb[i]!;
  }
  return { iou: union === 0 ? 0 : inter / union, voxel: size, cells: union };
}

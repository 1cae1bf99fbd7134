/**
 * The conventions both scene backends share, so the same tool calls give the same scene:
 * Z is up (as in Blender); rotations are Euler XYZ in degrees applied X first, then Y,
 * then Z about the world axes (Blender's 'XYZ' mode, three.js order 'ZYX'); `dimensions`
 * is an object's size along its own axes before `scale`.
 */
export const PRIMITIVE_KINDS = ["box", "sphere", "cylinder", "cone", "plane", "torus"] as const;
export type PrimitiveKind = (typeof PRIMITIVE_KINDS)[number];
/** `empty` is a group node with no geometry; `asset` is a glTF/GLB file from the environment. */
export const OBJECT_KINDS = [...PRIMITIVE_KINDS, "empty", "asset"] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export type Vec3 = [number, number, number];

/** Size of each primitive when `dimensions` is not given. */
export const DEFAULT_DIMENSIONS: Record<PrimitiveKind, Vec3> = {
  box: [1, 1, 1],
  sphere: [1, 1, 1],
  cylinder: [1, 1, 1],
  cone: [1, 1, 1],
  plane: [1, 1, 0],
  torus: [1, 1, 0.25],
};

/** What each primitive's dimensions mean, for tool descriptions. */
export const KIND_NOTES =
  "box: [x, y, z] sides; sphere: diameters (an ellipsoid when they differ); cylinder and cone: [diameter x, diameter y, height] " +
  "with the axis along local Z (a cone's apex at the top); plane: [x, y, 0] in the XY plane; torus: [outer diameter x, outer diameter y, tube thickness] " +
  "lying in the XY plane. Z is up.";

/** Named colours accepted besides #rrggbb (blender_rpc.py keeps the same table). */
export const NAMED_COLORS: Record<string, string> = {
  red: "#ff0000",
  green: "#00a000",
  blue: "#0000ff",
  yellow: "#ffff00",
  orange: "#ff8000",
  purple: "#800080",
  pink: "#ffc0cb",
  brown: "#8b4513",
  black: "#000000",
  white: "#ffffff",
  gray: "#808080",
  grey: "#808080",
  cyan: "#00ffff",
  magenta: "#ff00ff",
  beige: "#f5f5dc",
  silver: "#c0c0c0",
  gold: "#ffd700",
};

/** A colour name or hex string as the lower-case #rrggbb the snapshot records; null when not a colour. */
export function normalizeColor(c: string): string | null {
  const s = c.trim().toLowerCase();
  if (NAMED_COLORS[s]) return NAMED_COLORS[s];
  if (/^#[0-9a-f]{6}$/.test(s)) return s;
  if (/^#[0-9a-f]{3}$/.test(s)) return `#${s[1]}${s[1]}${s[2]}${s[2]}${s[3]}${s[3]}`;
  return null;
}

/** Whether a node's #rrggbb colour is the wanted one, given as a name or hex, so checks can say `color: red`. */
export function colorMatches(nodeColor: string | undefined, wanted: string): boolean {
  if (!nodeColor) return false;
  const w = normalizeColor(wanted);
  return w !== null && w === nodeColor.toLowerCase();
}

import { z } from "zod";
import { explainIssue } from "../../../environment/issues";
import { objectKeysAt } from "../../../environment/schema-walk";
import { didYouMean } from "../../../environment/suggest";
import { AddObjectArgs } from "../tool-args";

/**
 * The checks a scene task carries in `target.checks` (and a `scene` verifier in its
 * `checks`). Lengths are in scene units, angles in degrees; Z is up.
 */
const Name = z.string().min(1);
const Axis = z.enum(["x", "y", "z"]);
const base = {
  label: z.string().optional().describe("Shown in the reward breakdown; defaults to a description of the check"),
  weight: z.number().nonnegative().default(1),
};

export const ExistsCheck = z.strictObject({ check: z.literal("exists"), ...base, objects: z.array(Name).min(1) });
export const CountCheck = z
  .strictObject({
    check: z.literal("count"),
    ...base,
    kind: z.string().optional(),
    color: z.string().optional(),
    name_prefix: z.string().optional(),
    equals: z.number().int().nonnegative().optional(),
    min: z.number().int().nonnegative().optional(),
    max: z.number().int().nonnegative().optional(),
  })
  .refine((c) => c.equals !== undefined || c.min !== undefined || c.max !== undefined, { message: "give equals, min or max" });
export const PositionCheck = z.strictObject({
  check: z.literal("position"),
  ...base,
  object: Name,
  at: z.tuple([z.number().nullable(), z.number().nullable(), z.number().nullable()]).describe("World position; null skips an axis"),
  tolerance: z.number().nonnegative().default(0.05).describe("Largest allowed distance"),
});
export const SizeCheck = z.strictObject({
  check: z.literal("size"),
  ...base,
  object: Name,
  dimensions: z
    .tuple([z.number().nullable(), z.number().nullable(), z.number().nullable()])
    .describe("World size along the object's axes; null skips one"),
  tolerance: z.number().nonnegative().default(0.05).describe("Largest allowed difference on any axis"),
});
export const OnTopOfCheck = z.strictObject({
  check: z.literal("on_top_of"),
  ...base,
  object: Name,
  support: Name,
  tolerance: z.number().nonnegative().default(0.02).describe("Largest gap or sinking between the bottom of object and the top of support"),
  min_overlap: z.number().min(0).max(1).default(0.5).describe("Fraction of the object's footprint that must lie over the support"),
});
export const InsideCheck = z.strictObject({
  check: z.literal("inside"),
  ...base,
  object: Name,
  container: Name,
  tolerance: z.number().nonnegative().default(0.01).describe("How far a corner may stick out"),
});
export const NoOverlapCheck = z.strictObject({
  check: z.literal("no_overlap"),
  ...base,
  objects: z.array(Name).min(2).describe("Objects that must not interpenetrate (oriented boxes)"),
  tolerance: z.number().nonnegative().default(0.005).describe("Penetration depth still accepted (resting contact is 0)"),
});
export const AlignedCheck = z.strictObject({
  check: z.literal("aligned"),
  ...base,
  axis: Axis.describe("The direction of the row: the objects' centres must agree on the other axes listed in `compare`"),
  objects: z.array(Name).min(2),
  compare: z
    .array(Axis)
    .optional()
    .describe("Coordinates that must agree; default the other horizontal axis (x and y for a vertical column)"),
  tolerance: z.number().nonnegative().default(0.02).describe("Largest spread of each compared coordinate"),
});
export const DistanceCheck = z
  .strictObject({
    check: z.literal("distance"),
    ...base,
    a: Name,
    b: Name,
    min: z.number().nonnegative().optional(),
    max: z.number().nonnegative().optional(),
    horizontal: z.boolean().default(false).describe("Measure in the XY plane only"),
  })
  .refine((c) => c.min !== undefined || c.max !== undefined, { message: "give min, max or both" });
export const FacingCheck = z.strictObject({
  check: z.literal("facing"),
  ...base,
  object: Name,
  target: Name,
  forward: z.enum(["x", "-x", "y", "-y", "z", "-z"]).default("-y").describe("The object's local front axis (Blender's front is -y)"),
  tolerance: z.number().min(0).max(180).default(15).describe("Degrees between the front and the direction to the target"),
  horizontal: z.boolean().default(true).describe("Compare headings in the XY plane"),
});
export const OrientationCheck = z.strictObject({
  check: z.literal("orientation"),
  ...base,
  object: Name,
  axis: z.enum(["x", "-x", "y", "-y", "z", "-z"]).default("z").describe("The object's local axis to test (a cup's or a vase's up is z)"),
  along: z.enum(["x", "-x", "y", "-y", "z", "-z"]).default("z").describe("The world direction that axis must point along (upright: z)"),
  tolerance: z.number().min(0).max(180).default(10).describe("Degrees between the two"),
  either_direction: z
    .boolean()
    .default(false)
    .describe(
      "For shapes symmetric end to end (a cylinder, a rod, a pencil): the axis may point along the world direction or against it (a cylinder lying along -x passes along: x)",
    ),
});
export const ParentCheck = z.strictObject({
  check: z.literal("parent"),
  ...base,
  object: Name,
  parent: Name.nullable().describe("The object's direct parent in the scene graph (a group), or null for none"),
});
export const IouCheck = z.strictObject({
  check: z.literal("iou"),
  ...base,
  target: z.array(AddObjectArgs).min(1).describe("The target scene, as add_object calls"),
  objects: z.array(Name).optional().describe("Compare only these objects (and their descendants); default all"),
  voxel: z.number().positive().default(0.05),
  min: z.number().min(0).max(1).default(0.8),
});

/** Each check's schema by name: a check is parsed by its own schema so errors name its fields. */
export const CHECK_SCHEMAS = {
  exists: ExistsCheck,
  count: CountCheck,
  position: PositionCheck,
  size: SizeCheck,
  on_top_of: OnTopOfCheck,
  inside: InsideCheck,
  no_overlap: NoOverlapCheck,
  aligned: AlignedCheck,
  distance: DistanceCheck,
  facing: FacingCheck,
  orientation: OrientationCheck,
  parent: ParentCheck,
  iou: IouCheck,
} as const;
export type CheckName = keyof typeof CHECK_SCHEMAS;
export type SceneCheck = { [K in CheckName]: z.infer<(typeof CHECK_SCHEMAS)[K]> }[CheckName];
export const CHECK_NAMES = Object.keys(CHECK_SCHEMAS) as CheckName[];

/** A scene task's hidden `target`: the checks, and objects placed before the first turn. */
export const SceneTarget = z.strictObject({
  initial: z.array(AddObjectArgs).default([]).describe("Objects in the scene when the rollout starts (visible to the agent)"),
  checks: z.array(z.unknown()).default([]),
});
export type SceneTarget = z.infer<typeof SceneTarget>;

/** One parse problem, with the path inside the check list so a loader can position it. */
export interface CheckProblem {
  path: (string | number)[];
  message: string;
  /** Point at the key of the last path segment (an unknown field) rather than its value. */
  atKey?: boolean;
}

/** Parse raw checks; each bad one gives problems naming its index and field, the good ones are kept. */
export function parseChecks(raw: readonly unknown[]): { checks: SceneCheck[]; problems: CheckProblem[] } {
  const checks: SceneCheck[] = [];
  const problems: CheckProblem[] = [];
  raw.forEach((c, i) => {
    const name = c && typeof c === "object" && !Array.isArray(c) ? (c as { check?: unknown }).check : undefined;
    if (typeof name !== "string" || !(name in CHECK_SCHEMAS)) {
      const guess = typeof name === "string" ? didYouMean(name, CHECK_NAMES) : undefined;
      problems.push({
        path: [i, "check"],
        message: `unknown check ${JSON.stringify(name)}${guess ? ` (did you mean '${guess}'?)` : ""}; checks: ${CHECK_NAMES.join(", ")}`,
      });
      return;
    }
    const schema = CHECK_SCHEMAS[name as CheckName];
    const r = schema.safeParse(c);
    if (r.success) checks.push(r.data as SceneCheck);
    else {
      // Said as the loader says it (unknown field with did-you-mean, missing field, wrong type), at the field itself.
      for (const issue of r.error.issues) {
        for (const ex of explainIssue(issue, c, (p) => objectKeysAt(schema, c, p))) {
          problems.push({
            path: [i, ...ex.path.map((p) => (typeof p === "number" ? p : String(p)))],
            message: ex.message,
            ...(ex.atKey ? { atKey: true } : {}),
          });
        }
      }
    }
  });
  return { checks, problems };
}

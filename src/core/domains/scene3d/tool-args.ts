import { z } from "zod";
import { KIND_NOTES, normalizeColor, OBJECT_KINDS } from "./shapes";

/** Tool arguments: zod is the source of truth, the JSON Schema shown to the policy is generated from it. */
const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
const PositiveVec3 = z.tuple([z.number().nonnegative(), z.number().nonnegative(), z.number().nonnegative()]);
const Name = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[A-Za-z0-9_.\- ]+$/, "names are letters, digits, space, '_', '.' or '-'");
const Color = z
  .string()
  .refine((c) => normalizeColor(c) !== null, "a colour is a name (red, blue, …) or #rrggbb")
  .describe("A colour name (red, green, blue, yellow, orange, purple, pink, brown, black, white, gray, …) or #rrggbb");
const Material = z
  .strictObject({
    roughness: z.number().min(0).max(1).optional(),
    metalness: z.number().min(0).max(1).optional(),
  })
  .describe("Surface parameters besides the colour");

export const AddObjectArgs = z.strictObject({
  name: Name.describe("Unique name of the new object"),
  kind: z.enum(OBJECT_KINDS).describe(`Primitive kind, 'empty' (a group node) or 'asset'. ${KIND_NOTES}`),
  asset: z.string().optional().describe("kind asset: a .gltf/.glb path inside the environment's asset folder"),
  position: Vec3.optional().describe("[x, y, z] of the object's origin (its centre), relative to the parent; default [0, 0, 0]"),
  rotation: Vec3.optional().describe("Euler XYZ in degrees, relative to the parent; default [0, 0, 0]"),
  scale: Vec3.optional().describe("Scale factors; default [1, 1, 1]"),
  dimensions: PositiveVec3.optional().describe("Size along the object's own axes before scale (see kind)"),
  color: Color.optional(),
  material: Material.optional(),
  parent: Name.optional().describe("Name of the parent object; transforms are then relative to it"),
});
export type AddObjectArgs = z.infer<typeof AddObjectArgs>;

export const UpdateObjectArgs = z.strictObject({
  name: Name.describe("The object to change"),
  new_name: Name.optional().describe("Rename the object"),
  position: Vec3.optional(),
  rotation: Vec3.optional().describe("Euler XYZ in degrees"),
  scale: Vec3.optional(),
  dimensions: PositiveVec3.optional(),
  color: Color.optional(),
  material: Material.optional(),
  parent: Name.nullable().optional().describe("New parent (the local transform is kept), or null to detach"),
});
export type UpdateObjectArgs = z.infer<typeof UpdateObjectArgs>;

export const RemoveObjectArgs = z.strictObject({
  name: Name.describe("The object to remove, with everything parented to it"),
});
export type RemoveObjectArgs = z.infer<typeof RemoveObjectArgs>;

export const GroupArgs = z.strictObject({
  name: Name.describe("Name of the new group (an empty)"),
  objects: z.array(Name).min(1).describe("Objects to move into the group; their world placement is kept"),
  position: Vec3.optional().describe("Origin of the group; default [0, 0, 0]"),
});
export type GroupArgs = z.infer<typeof GroupArgs>;

export const QuerySceneArgs = z.strictObject({
  name: Name.optional().describe("Only this object; the whole scene when absent"),
});
export type QuerySceneArgs = z.infer<typeof QuerySceneArgs>;

export const RenderViewArgs = z.strictObject({
  camera: Name.optional().describe("A camera object in the scene"),
  position: Vec3.optional().describe("Camera position when no camera is named; default: looking at the scene from the front-right, above"),
  look_at: Vec3.optional().describe("Point the camera looks at; default the scene's centre"),
  width: z.number().int().min(32).max(1024).optional(),
  height: z.number().int().min(32).max(1024).optional(),
});
export type RenderViewArgs = z.infer<typeof RenderViewArgs>;

export const RunBpyArgs = z.strictObject({
  code: z.string().min(1).describe("Python run inside Blender with `bpy`, `math` and `mathutils` imported; print() output is returned"),
});
export type RunBpyArgs = z.infer<typeof RunBpyArgs>;

/** Loose on purpose: a generic `answer` argument (as the engine's own submit takes) is accepted and ignored. */
export const SubmitArgs = z.object({
  message: z.string().optional().describe("A short note on what was built"),
});

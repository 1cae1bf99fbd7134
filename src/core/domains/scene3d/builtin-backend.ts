import { MathUtils, Object3D, Scene } from "three";
import type { SceneNode, SceneSnapshot } from "../../schema/trajectory";
import { resolveInside } from "../../environment/safe-path";
import { assetBounds } from "./asset-bounds";
import { ToolError } from "../../model/errors";
import { missingObjectMessage, type SceneBackend, type StepResult } from "./backend";
import { DEFAULT_DIMENSIONS, normalizeColor, type PrimitiveKind, type Vec3 } from "./shapes";
import type { AddObjectArgs, GroupArgs, RenderViewArgs, UpdateObjectArgs } from "./tool-args";
import { fillGroupBoxes, type NodeShape, worldNode } from "./world-node";

/** Per-object data kept on the three.js node. */
interface Meta {
  kind: string;
  extents: Vec3;
  localCenter: Vec3;
  color?: string;
  material?: Record<string, unknown>;
  asset?: string;
}

const meta = (o: Object3D): Meta => o.userData as Meta;

/**
 * The in-process scene: a three.js scene graph (Object3D transforms, Matrix4 world
 * matrices). Tool calls are data; nothing the model writes is executed. Deterministic.
 */
export class BuiltinBackend implements SceneBackend {
  readonly kind = "builtin" as const;
  private readonly scene = new Scene();
  private readonly objects = new Map<string, Object3D>();

  constructor(private readonly assetsDir?: string) {}

  private get(name: string): Object3D {
    const o = this.objects.get(name);
    if (!o) throw new ToolError(missingObjectMessage(name, [...this.objects.keys()].sort()));
    return o;
  }

  private isAncestor(a: Object3D, b: Object3D): boolean {
    for (let p: Object3D | null = b; p; p = p.parent) if (p === a) return true;
    return false;
  }

  private shapeFor(args: AddObjectArgs): Pick<Meta, "extents" | "localCenter" | "asset"> {
    if (args.kind === "empty") {
      if (args.dimensions) throw new ToolError("an empty has no dimensions");
      return { extents: [0, 0, 0], localCenter: [0, 0, 0] };
    }
    if (args.kind === "asset") {
      if (!args.asset) throw new ToolError("kind 'asset' needs 'asset': a .gltf/.glb path in the asset folder");
      if (!this.assetsDir) throw new ToolError("this environment has no asset folder (scene.assets in environment.yaml)");
      const r = resolveInside(this.assetsDir, args.asset);
      if (!r.ok) throw new ToolError(`asset '${args.asset}': ${r.message}`);
      const b = assetBounds(r.path);
      if (!args.dimensions) return { extents: b.size, localCenter: b.center, asset: args.asset };
      // Resize the asset to the given dimensions about its own origin.
      const k = b.size.map((s, i) => (s > 0 ? args.dimensions![i]! / s : 1));
      return { extents: args.dimensions, localCenter: [b.center[0] * k[0]!, b.center[1] * k[1]!, b.center[2] * k[2]!], asset: args.asset };
    }
    if (args.asset) throw new ToolError("'asset' is only for kind 'asset'");
    return { extents: args.dimensions ?? DEFAULT_DIMENSIONS[args.kind as PrimitiveKind], localCenter: [0, 0, 0] };
  }

  private static place(o: Object3D, position?: Vec3, rotation?: Vec3, scale?: Vec3): void {
    if (position) o.position.set(...position);
    if (rotation) o.rotation.set(MathUtils.degToRad(rotation[0]), MathUtils.degToRad(rotation[1]), MathUtils.degToRad(rotation[2]), "ZYX");
    if (scale) o.scale.set(...scale);
  }

  async add(args: AddObjectArgs): Promise<StepResult> {
    if (this.objects.has(args.name))
      throw new ToolError(`an object named '${args.name}' already exists; names are unique (use update_object to change it)`);
    const parent = args.parent ? this.get(args.parent) : this.scene;
    const shape = this.shapeFor(args);
    const o = new Object3D();
    o.name = args.name;
    o.rotation.order = "ZYX";
    BuiltinBackend.place(o, args.position, args.rotation, args.scale);
    const m: Meta = { kind: args.kind, ...shape };
    if (args.color) m.color = normalizeColor(args.color)!;
    if (args.material) m.material = { ...args.material };
    o.userData = m;
    parent.add(o);
    this.objects.set(args.name, o);
    return { text: `added ${args.kind} '${args.name}'` };
  }

  async update(args: UpdateObjectArgs): Promise<StepResult> {
    const o = this.get(args.name);
    const m = meta(o);
    // Validate everything before changing anything, so a rejected call leaves the scene as it was.
    if (args.new_name !== undefined && args.new_name !== args.name && this.objects.has(args.new_name)) {
      throw new ToolError(`cannot rename to '${args.new_name}': an object with that name exists`);
    }
    let newParent: Object3D | undefined;
    if (args.parent !== undefined) {
      newParent = args.parent === null ? this.scene : this.get(args.parent);
      if (newParent !== this.scene && this.isAncestor(o, newParent)) {
        throw new ToolError(`cannot parent '${args.name}' to '${args.parent}': that would make a cycle`);
      }
    }
    if (args.dimensions && m.kind === "empty") throw new ToolError("an empty has no dimensions");
    BuiltinBackend.place(o, args.position, args.rotation, args.scale);
    if (args.dimensions) {
      const k = m.extents.map((s, i) => (s > 0 ? args.dimensions![i]! / s : 1));
      m.localCenter = [m.localCenter[0] * k[0]!, m.localCenter[1] * k[1]!, m.localCenter[2] * k[2]!];
      m.extents = args.dimensions;
    }
    if (args.color) m.color = normalizeColor(args.color)!;
    if (args.material) m.material = { ...(m.material ?? {}), ...args.material };
    if (newParent) newParent.add(o); // keeps the local transform
    if (args.new_name !== undefined && args.new_name !== args.name) {
      this.objects.delete(args.name);
      o.name = args.new_name;
      this.objects.set(args.new_name, o);
    }
    return { text: `updated '${o.name}'` };
  }

  async remove(name: string): Promise<StepResult> {
    const o = this.get(name);
    const gone: string[] = [];
    o.traverse((d) => {
      if (this.objects.get(d.name) === d) gone.push(d.name);
    });
    for (const n of gone) this.objects.delete(n);
    o.removeFromParent();
    return { text: `removed ${gone.map((n) => `'${n}'`).join(", ")}` };
  }

  async group(args: GroupArgs): Promise<StepResult> {
    if (this.objects.has(args.name)) throw new ToolError(`an object named '${args.name}' already exists; names are unique`);
    const members = args.objects.map((n) => this.get(n));
    if (new Set(args.objects).size !== args.objects.length) throw new ToolError("an object is listed twice in 'objects'");
    const g = new Object3D();
    g.name = args.name;
    g.rotation.order = "ZYX";
    BuiltinBackend.place(g, args.position);
    g.userData = { kind: "empty", extents: [0, 0, 0], localCenter: [0, 0, 0] } satisfies Meta;
    this.scene.add(g);
    g.updateMatrixWorld(true);
    for (const o of members) g.attach(o); // keeps the world transform
    this.objects.set(args.name, g);
    return { text: `grouped ${args.objects.length} objects into '${args.name}'` };
  }

  async render(_args: RenderViewArgs): Promise<StepResult> {
    throw new ToolError("the builtin backend has no renderer; use query_scene to inspect positions and sizes");
  }

  async snapshot(): Promise<SceneSnapshot> {
    this.scene.updateMatrixWorld(true);
    const nodes: SceneNode[] = [];
    for (const [name, o] of this.objects) {
      const m = meta(o);
      const parent = o.parent && o.parent !== this.scene ? o.parent.name : null;
      const shape: NodeShape = { name, kind: m.kind, parent, extents: m.extents, localCenter: m.localCenter };
      if (m.color) shape.color = m.color;
      if (m.material) shape.material = m.material;
      if (m.asset) shape.asset = m.asset;
      nodes.push(worldNode(shape, o.matrixWorld));
    }
    fillGroupBoxes(nodes);
    nodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { nodes };
  }

  async close(): Promise<void> {
    this.objects.clear();
    this.scene.clear();
  }
}

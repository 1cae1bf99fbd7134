import { SandboxInfraError, ToolCrashError } from "../../model/errors";
import type { ContentPart, SceneSnapshot } from "../../schema/trajectory";
import type { AddObjectArgs, GroupArgs, RenderViewArgs, UpdateObjectArgs } from "./tool-args";

/**
 * The 3D program itself broke (Blender crashed or hung) during a step. It travels as a
 * ToolCrashError: the engine ends the rollout as an error, not retried (the agent's script
 * is the likely cause), and records the message, which carries the program's stderr; the
 * run goes on. `stderr` is also kept apart for callers that want it alone.
 */
export class SceneBackendCrash extends ToolCrashError {
  override name = "SceneBackendCrash";
  constructor(
    readonly summary: string,
    readonly stderr: string,
  ) {
    super(stderr.trim() ? `${summary}\nBlender's stderr:\n${stderr.trimEnd()}` : summary);
  }
}

/**
 * The 3D program could not start at all (before any agent step): an infrastructure failure,
 * so the rollout is retried like a sandbox that could not start.
 */
export class SceneBackendStartError extends SandboxInfraError {
  override name = "SceneBackendStartError";
}

/** What a tool call on a backend returns besides the new snapshot. */
export interface StepResult {
  /** Text for the policy. */
  text: string;
  /** Extra content (an image from render_view). */
  parts?: ContentPart[];
}

/**
 * One scene for one rollout. Every mutating call is atomic: it either applies fully or
 * throws ToolError and leaves the scene as it was.
 */
export interface SceneBackend {
  readonly kind: "builtin" | "blender";
  add(args: AddObjectArgs): Promise<StepResult>;
  update(args: UpdateObjectArgs): Promise<StepResult>;
  remove(name: string): Promise<StepResult>;
  group(args: GroupArgs): Promise<StepResult>;
  /** A PNG, where the backend can render; throws ToolError where it cannot. */
  render(args: RenderViewArgs): Promise<StepResult>;
  /** Blender only: run a Python snippet with bpy. */
  runPython?(code: string): Promise<StepResult>;
  /** Nodes sorted by name, world-space; `gltf` where the backend exports one. */
  snapshot(): Promise<SceneSnapshot>;
  close(): Promise<void>;
}

/** The message for a call on a missing object: it names the objects that exist. */
export function missingObjectMessage(name: string, existing: readonly string[]): string {
  const list = existing.length ? existing.map((n) => `'${n}'`).join(", ") : "none (the scene is empty)";
  return `no object named '${name}'; objects in the scene: ${list}`;
}

import type { Environment } from "../../model/environment";
import type { LoadedTask } from "../../model/environment";
import type { SceneSnapshot } from "../../schema/trajectory";
import type { RolloutState, ToolContext } from "../../model/domain";
import type { SceneBackend } from "./backend";
import { BlenderBackend } from "./blender/blender-backend";
import { BuiltinBackend } from "./builtin-backend";
import { SceneTarget } from "./checks/check-spec";

const BACKEND_KEY = "scene3d.backend";
const SNAPSHOT_KEY = "scene3d.snapshot";
const STEPS_KEY = "scene3d.steps";

/** A scene tool call that changed the scene, as it ran: what a fork replays to rebuild the scene. */
export interface SceneStep {
  tool: string;
  args: unknown;
  /** It failed, after changing the scene (a bpy snippet that raised): its replay fails too. */
  failed?: true;
}

/** The task's target, validated; a malformed one names the task's file and line. */
export function sceneTargetOf(task: LoadedTask): SceneTarget {
  const r = SceneTarget.safeParse(task.target ?? {});
  if (r.success) return r.data;
  const where = `${task.source.file}:${task.source.line}`;
  const what = r.error.issues.map((i) => `target.${i.path.join(".")}: ${i.message}`).join("; ");
  throw new Error(`${where}: task '${task.id}': ${what}`);
}

export function backendKind(env: Environment): "builtin" | "blender" {
  return env.manifest.scene?.backend ?? "builtin";
}

/** The rollout's scene, created (with the task's initial objects) on first use. */
export async function sceneOf(ctx: ToolContext): Promise<SceneBackend> {
  const have = ctx.state.get(BACKEND_KEY) as SceneBackend | undefined;
  if (have) return have;
  const target = sceneTargetOf(ctx.task);
  const backend: SceneBackend =
    backendKind(ctx.env) === "blender"
      ? await BlenderBackend.start(await ctx.sandbox(), {
          signal: ctx.signal,
          // Give up on a hung Blender a little before the engine's own step deadline, so the
          // hang is reported as a crash with Blender's stderr rather than a plain timeout.
          timeoutMs: Math.max(1000, ctx.timeoutMs - 1500),
          lifetimeMs: ctx.env.manifest.sandbox.timeouts.rollout * 1000 + 60_000,
          assetsDir: ctx.env.paths.assets,
        })
      : new BuiltinBackend(ctx.env.paths.assets);
  ctx.state.set(BACKEND_KEY, backend);
  for (const spec of target.initial) await backend.add(spec);
  await rememberSnapshot(ctx.state, backend);
  return backend;
}

/** Keep the latest snapshot so the verifier grades it even after the backend is closed. */
export async function rememberSnapshot(state: RolloutState, backend: SceneBackend): Promise<SceneSnapshot> {
  const snap = await backend.snapshot();
  state.set(SNAPSHOT_KEY, snap);
  return snap;
}

export function lastSnapshot(state: RolloutState): SceneSnapshot | undefined {
  return state.get(SNAPSHOT_KEY) as SceneSnapshot | undefined;
}

export async function closeScene(state: RolloutState): Promise<void> {
  const b = state.get(BACKEND_KEY) as SceneBackend | undefined;
  state.delete(BACKEND_KEY);
  await b?.close();
}

/** Notes a step that changed (or may have changed) the scene. */
export function noteStep(state: RolloutState, step: SceneStep): void {
  const steps = (state.get(STEPS_KEY) as SceneStep[] | undefined) ?? [];
  steps.push(step);
  state.set(STEPS_KEY, steps);
}

/** The steps that changed the scene since the task's initial objects were placed. */
export function stepsOf(state: RolloutState): SceneStep[] {
  return [...((state.get(STEPS_KEY) as SceneStep[] | undefined) ?? [])];
}

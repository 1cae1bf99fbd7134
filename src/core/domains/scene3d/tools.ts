import type { z } from "zod";
import type { Environment } from "../../model/environment";
import { defineTool } from "../define-tool";
import { ToolError } from "../../model/errors";
import type { ToolContext, ToolDefinition, ToolResult } from "../../model/domain";
import { missingObjectMessage, type SceneBackend, type StepResult } from "./backend";
import { backendKind, noteStep, rememberSnapshot, sceneOf } from "./rollout-scene";
import {
  AddObjectArgs,
  GroupArgs,
  QuerySceneArgs,
  RemoveObjectArgs,
  RenderViewArgs,
  RunBpyArgs,
  SubmitArgs,
  UpdateObjectArgs,
} from "./tool-args";

/**
 * One scene tool: run the step on the rollout's backend and attach the scene snapshot,
 * to errors as well. Agent mistakes (ToolError) become error observations; a backend crash
 * (SceneBackendCrash) propagates and ends the rollout. A tool that `changes` the scene notes
 * its steps, so a fork can rebuild the scene (fork-scene.ts): the ones that succeeded (the
 * backend's calls are atomic), or with "even-failed" every one, since a bpy snippet that
 * raised may have changed the scene before it did.
 */
function sceneTool<S extends z.ZodType>(
  name: string,
  description: string,
  args: S,
  step: (backend: SceneBackend, args: z.infer<S>, ctx: ToolContext) => Promise<StepResult & { submit?: ToolResult["submit"] }>,
  changes: false | "succeeded" | "even-failed" = false,
): ToolDefinition {
  return defineTool({
    name,
    description,
    args,
    errors: "scene3d",
    // The scene starts (with the task's objects) before the arguments are read: its snapshot rides along even on bad arguments.
    prepare: async (ctx) => {
      await sceneOf(ctx);
    },
    errorArtifacts: async (ctx) => ({ scene: await rememberSnapshot(ctx.state, await sceneOf(ctx)) }),
    async run(parsed, ctx): Promise<ToolResult> {
      const backend = await sceneOf(ctx);
      let r: StepResult & { submit?: ToolResult["submit"] };
      try {
        r = await step(backend, parsed, ctx);
      } catch (e) {
        if (e instanceof ToolError && changes === "even-failed") noteStep(ctx.state, { tool: name, args: parsed, failed: true });
        throw e;
      }
      if (changes) noteStep(ctx.state, { tool: name, args: parsed });
      const scene = await rememberSnapshot(ctx.state, backend);
      const out: ToolResult = {
        output: r.parts ? [{ type: "text", text: r.text }, ...r.parts] : r.text,
        status: "ok",
        exitCode: 0,
        artifacts: { scene },
      };
      const image = r.parts?.find((p) => p.type === "image_url");
      if (image && image.type === "image_url") {
        const m = /^data:([^;]+);base64,(.*)$/.exec(image.image_url.url);
        if (m) out.artifacts = { ...out.artifacts, images: [{ mime: m[1]!, data: m[2]! }] };
      }
      if (r.submit) out.submit = r.submit;
      return out;
    },
  });
}

/** The scene graph as compact JSON: what query_scene shows. */
async function describeScene(backend: SceneBackend, only?: string): Promise<string> {
  const { nodes } = await backend.snapshot();
  const chosen = only ? nodes.filter((n) => n.name === only) : nodes;
  if (only && chosen.length === 0) {
    throw new ToolError(
      missingObjectMessage(
        only,
        nodes.map((n) => n.name),
      ),
    );
  }
  if (chosen.length === 0) return "the scene is empty";
  return chosen.map((n) => JSON.stringify({ ...n, material: undefined })).join("\n");
}

export function sceneTools(env: Environment): ToolDefinition[] {
  const tools: ToolDefinition[] = [
    sceneTool(
      "add_object",
      "Add an object (a primitive, an empty group node, or a glTF asset) to the scene. Names are unique. Z is up; rotation is Euler XYZ in degrees.",
      AddObjectArgs,
      (b, a) => b.add(a),
      "succeeded",
    ),
    sceneTool(
      "update_object",
      "Change an object's name, transform, size, colour, material or parent. Only the given fields change.",
      UpdateObjectArgs,
      (b, a) => b.update(a),
      "succeeded",
    ),
    sceneTool(
      "remove_object",
      "Remove an object and everything parented to it.",
      RemoveObjectArgs,
      (b, a) => b.remove(a.name),
      "succeeded",
    ),
    sceneTool(
      "group",
      "Create an empty named `name` and parent the given objects to it, keeping where they are in the world.",
      GroupArgs,
      (b, a) => b.group(a),
      "succeeded",
    ),
    sceneTool(
      "query_scene",
      "List the scene graph: each object's kind, parent, world position, rotation, scale, dimensions, centre and bounding box, one JSON object a line.",
      QuerySceneArgs,
      async (b, a) => ({ text: await describeScene(b, a.name) }),
    ),
    sceneTool("render_view", "Render the scene to a PNG image from a named camera or a given viewpoint.", RenderViewArgs, (b, a) =>
      b.render(a),
    ),
    sceneTool("submit", "Finish: the scene as it is now is graded.", SubmitArgs, async (_b, a) => ({
      text: "submitted",
      submit: { answer: a.message ?? null },
    })),
  ];
  if (backendKind(env) === "blender") {
    tools.splice(
      tools.length - 1,
      0,
      sceneTool(
        "run_bpy",
        "Run a Python snippet inside Blender (bpy, math and mathutils are imported). Objects it creates appear in the scene; print() output is returned.",
        RunBpyArgs,
        async (b, a) => {
          if (!b.runPython) throw new ToolError("run_bpy needs the blender backend");
          return b.runPython(a.code);
        },
        "even-failed",
      ),
    );
  }
  return tools;
}

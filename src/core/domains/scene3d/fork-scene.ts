import { z } from "zod";
import type { ToolContext } from "../../model/domain";
import { stepsOf } from "./rollout-scene";
import { sceneTools } from "./tools";

/** What a fork carries of a scene: the steps that changed it after the task's initial objects. */
const ForkedScene = z.object({
  steps: z.array(z.object({ tool: z.string(), args: z.unknown(), failed: z.literal(true).optional() })),
});

/**
 * The scene of a paused rollout, for the debugger's fork: its steps rather than its
 * snapshot. A snapshot is world-space and lossy (an asset's mesh, a material, a parent's
 * non-uniform scale); the same calls on the same backend rebuild the scene exactly.
 */
export async function forkScene(ctx: ToolContext): Promise<unknown> {
  const steps = stepsOf(ctx.state);
  return steps.length > 0 ? { steps } : undefined;
}

/**
 * Rebuilds a fork's scene on top of the task's initial objects by running its steps again
 * through the scene tools (so the fork notes them too, and a fork of the fork has them).
 * A step that succeeded then and fails now means the scene would not be the one forked:
 * that is an error, which ends the forked rollout before its first turn with the reason.
 */
export async function resumeScene(ctx: ToolContext, saved: unknown): Promise<void> {
  const parsed = ForkedScene.safeParse(saved);
  if (!parsed.success) throw new Error(`the fork's scene is not readable: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const tools = new Map(sceneTools(ctx.env).map((t) => [t.name, t]));
  for (const [i, step] of parsed.data.steps.entries()) {
    const tool = tools.get(step.tool);
    if (!tool) throw new Error(`the fork's scene step ${i + 1} calls '${step.tool}', which this environment does not have`);
    const out = await tool.run(step.args as Record<string, unknown>, ctx);
    if (out.status !== "ok" && !step.failed)
      throw new Error(`rebuilding the forked scene: step ${i + 1} (${step.tool}) failed this time: ${out.error ?? out.output}`);
  }
}

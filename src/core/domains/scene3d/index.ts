import type { DomainPlugin, Verifier } from "../../model/domain";
import { forkScene, resumeScene } from "./fork-scene";
import { closeScene, sceneOf } from "./rollout-scene";
import { sceneTools } from "./tools";
import { sceneTaskProblems } from "./validate-tasks";
import { sceneVerifier } from "./verifier";

/** The 3D-tool domain: scene tools on a builtin (three.js) or Blender backend, and the `scene` verifier. */
export const scene3dDomain: DomainPlugin = {
  name: "scene3d",
  tools: (env) => sceneTools(env),
  verifiers: [sceneVerifier as Verifier],
  async setup(ctx) {
    await sceneOf(ctx); // start the backend and place the task's initial objects before the first turn
  },
  async teardown(ctx) {
    await closeScene(ctx.state);
  },
  checkTasks: (env) =>
    sceneTaskProblems(
      env,
      env.manifest.reward.flatMap((r) => (r.type === "scene" ? (r.checks ?? []) : [])),
    ),
  forkState: forkScene,
  resumeState: resumeScene,
};

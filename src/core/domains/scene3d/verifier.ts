import type { VerifierConfig } from "../../schema/verifier";
import type { Verifier } from "../../model/domain";
import { parseChecks } from "./checks/check-spec";
import { SceneChecker } from "./checks/evaluate";
import { lastSnapshot, sceneTargetOf } from "./rollout-scene";

type SceneVerifierConfig = Extract<VerifierConfig, { type: "scene" }>;

/**
 * The `scene` verifier: the manifest's checks plus the task's `target.checks`, evaluated on
 * the final scene. Score = weighted fraction passed (mode fraction) or all-or-nothing (mode all);
 * details list every check's measurement.
 */
export const sceneVerifier: Verifier<SceneVerifierConfig> = {
  type: "scene",
  async verify(config, ctx) {
    const target = sceneTargetOf(ctx.task);
    const raw = [...(config.checks ?? []), ...target.checks];
    const { checks, problems } = parseChecks(raw);
    if (problems.length) {
      const nManifest = config.checks?.length ?? 0;
      const where = (i: number) =>
        i < nManifest
          ? `${ctx.env.manifestPath}: reward scene checks[${i}]`
          : `${ctx.task.source.file}:${ctx.task.source.line}: target.checks[${i - nManifest}]`;
      throw new Error(problems.map((p) => `${where(p.path[0] as number)}.${p.path.slice(1).join(".")}: ${p.message}`).join("; "));
    }
    if (checks.length === 0) throw new Error(`task '${ctx.task.id}' has no scene checks (target.checks) and the verifier lists none`);
    const snap = lastSnapshot(ctx.state) ?? { nodes: [] };
    const report = await new SceneChecker(snap.nodes).evaluate(checks);
    const failed = report.results.filter((r) => !r.passed);
    return {
      // mode all: a scene with every object at one point still passes a few checks (exists, count), which partial credit would reward.
      score: config.mode === "all" ? (failed.length === 0 ? 1 : 0) : report.score,
      passed: failed.length === 0,
      reason:
        failed.length === 0
          ? `all ${report.results.length} checks passed`
          : `${failed.length} of ${report.results.length} checks failed: ${failed.map((f) => f.label).join("; ")}`,
      details: { checks: report.results },
    };
  },
};

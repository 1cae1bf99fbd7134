import { rolloutFiles } from "../runs/run-dir";
import { scanTrajectory } from "../runs/trajectory-reader";
import { type ReportRollout, RolloutFacts, reportRolloutOf } from "./report-rollout";

/** Every rollout of a run folder, or of the files given (those without a start event are skipped: they say nothing). */
export function readReportRollouts(runDir: string, files: readonly string[] = rolloutFiles(runDir)): ReportRollout[] {
  return files.flatMap((file) => {
    // Streamed: only the events the report reads are kept, so a rollout of any size can be reported.
    const facts = new RolloutFacts();
    scanTrajectory(file, (e) => facts.add(e));
    const rollout = reportRolloutOf(facts);
    return rollout ? [rollout] : [];
  });
}

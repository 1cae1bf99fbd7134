export { parseTrajectory, readTrajectory, type TrajectoryRead } from "./trajectory-reader";
export {
  listRuns,
  readOutcomes,
  readRun,
  rolloutFiles,
  type RunInfo,
  ROLLOUTS_DIR,
  RUN_FILE,
  SUMMARY_FILE,
  summarizeRunDir,
  writeJsonAtomic,
} from "./run-dir";
export { PASS_REWARD, type RolloutOutcome, summarize } from "./summarize";
export { passAtK, reportedKs } from "./pass-at-k";
export { type ChatRecord, exportChatJsonl, trajectoryToChat } from "./export-chat";

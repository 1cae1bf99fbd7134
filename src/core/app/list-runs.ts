import { listRunFolders, type RunListing } from "../runs/run-listing";

export interface ListRunsOptions {
  /** The runs folder: one folder per run, each with its run.json. */
  runsDir: string;
  signal?: AbortSignal;
}

/** The runs under a runs folder, newest first; a damaged run is listed with its problem, never dropped. */
export function listRuns(opts: ListRunsOptions): RunListing[] {
  opts.signal?.throwIfAborted();
  return listRunFolders(opts.runsDir);
}

export type { RunListing, RolloutListing } from "../runs/run-listing";
export { describeRun, formatBreakdown, listRollouts, readRolloutSummary, rolloutFailureLine } from "../runs/run-listing";

import os from "node:os";
import { currentOwner, ownerAlive } from "../util/owner";
import type { RunRecord } from "../schema/run";

/** This process as the owner a run records in run.json. */
export function runOwner(): NonNullable<RunRecord["owner"]> {
  const o = currentOwner();
  return { pid: o.pid, start: o.start, host: os.hostname() };
}

/**
 * Whether the process that ran a run is gone: same pid and start time (so a reused pid is
 * not taken for the owner), on this host. A run of another host, or one that recorded no
 * owner (older runs), cannot be judged here: false.
 */
export function runOwnerGone(record: RunRecord): boolean {
  const o = record.owner;
  if (!o || o.host !== os.hostname()) return false;
  return !ownerAlive({ pid: o.pid, start: o.start });
}

/**
 * The record as a reader should show it: a `running` run whose owner is gone (killed with
 * SIGKILL, a second Ctrl-C, a crash) never finishes, so it is `interrupted`. run.json itself
 * is left as it is: `rlenv run --resume` finishes the run and writes its real end.
 */
export function shownRecord(record: RunRecord): RunRecord {
  return record.status === "running" && runOwnerGone(record) ? { ...record, status: "interrupted" } : record;
}

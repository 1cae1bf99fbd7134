import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { RunRecord } from "../../src/core/schema/run";
import { StartEvent } from "../../src/core/schema/trajectory";

/**
 * Run-folder fixtures written once: a run's run.json and a rollout's start event, typed from
 * the core schemas and parsed by them as they are made, so a fixture cannot drift from what
 * the readers accept (a field the schema comes to require fails here, naming it).
 */

/** run.json as a run writes it (defaults filled in by readers stay out, as on disk). */
export type RunJson = z.input<typeof RunRecord>;

/** A start event less its place in the file (seq, t), which whoever writes the trajectory adds. */
export type StartJson = Omit<z.input<typeof StartEvent>, "seq" | "t">;

/** A finished run's record, with `over` in place of the defaults (a shallow merge: pass whole `env` or `config` objects). */
export function runRecord(over: Partial<RunJson> = {}): RunJson {
  const record: RunJson = {
    id: "r",
    created: "2026-01-01T00:00:00Z",
    status: "completed",
    env: { name: "e", hash: "h", domain: "custom", path: "/e" },
    config: { policy: { kind: "oracle" } },
    ...over,
  };
  RunRecord.parse(record);
  return record;
}

/** A run folder: `dir/run.json` (see runRecord) and an empty `dir/rollouts`. Returns the record. */
export function writeRunFolder(dir: string, over: Partial<RunJson> = {}): RunJson {
  const record = runRecord(over);
  mkdirSync(path.join(dir, "rollouts"), { recursive: true });
  writeFileSync(path.join(dir, "run.json"), JSON.stringify(record));
  return record;
}

/** The first event of a rollout's trajectory, with `over` in place of the defaults (a shallow merge). */
export function startEvent(over: Partial<StartJson> = {}): StartJson {
  const event: StartJson = {
    type: "start",
    run_id: "r",
    rollout_id: "t-0",
    env: { name: "e", hash: "h", domain: "custom" },
    task: { id: "t", prompt: "p" },
    policy: { kind: "oracle" },
    sample: 0,
    sandbox: { backend: "process" },
    ...over,
  };
  StartEvent.parse({ seq: 0, t: 0, ...event });
  return event;
}

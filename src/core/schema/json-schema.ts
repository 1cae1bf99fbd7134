import { z } from "zod";
import { Manifest } from "./manifest";
import { RunRecord } from "./run";
import { RunFile } from "./run-file";
import { Task } from "./task";
import { TrajectoryEvent } from "./trajectory";

const TARGETS: Array<[string, z.core.$ZodType, string]> = [
  ["environment.schema.json", Manifest, "RL Env Studio environment manifest (environment.yaml)"],
  ["task.schema.json", Task, "RL Env Studio task (one line of tasks.jsonl, or task.yaml)"],
  ["trajectory-event.schema.json", TrajectoryEvent, "RL Env Studio trajectory event (one line of a rollout file)"],
  ["run.schema.json", RunRecord, "RL Env Studio run record (run.json)"],
  ["run-config.schema.json", RunFile, "RL Env Studio run config file (rlenv run -c FILE)"],
];

/** The JSON Schema files the extension contributes for completion, by file name. */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, schema, title] of TARGETS) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    out[file] = `${JSON.stringify({ title, ...json }, null, 2)}\n`;
  }
  return out;
}

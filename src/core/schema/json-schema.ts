import { z } from "zod";
import { ACCEPTS } from "./harbor-task-rules";
import { HarborTaskToml } from "./harbor-task-toml";
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

/**
 * Harbor's task.toml for TOML editors (Even Better TOML / taplo), in the draft they read (7).
 * Harbor ignores a field it does not have, so the schema lets one through (the loader warns
 * about it instead); the tables stay strict in the zod schema for those warnings. A field whose
 * value is normalised on input (os in any case) or has another name (transport "http") is written
 * as what it accepts, not as zod derives it.
 */
function harborTaskJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(HarborTaskToml, {
    io: "input",
    target: "draft-7",
    unrepresentable: "any",
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      const accepts = jsonSchema[ACCEPTS];
      if (accepts && typeof accepts === "object") {
        delete jsonSchema[ACCEPTS];
        delete jsonSchema.type;
        delete jsonSchema.enum;
        delete jsonSchema.anyOf;
        Object.assign(jsonSchema, accepts);
      }
    },
  }) as Record<string, unknown>;
}

/** The JSON Schema files the extension contributes for completion, by file name. */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, schema, title] of TARGETS) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    out[file] = `${JSON.stringify({ title, ...json }, null, 2)}\n`;
  }
  const harbor = { title: "Harbor task config (task.toml, schema 1.0 to 1.3), as RL Env Studio reads it", ...harborTaskJsonSchema() };
  out["harbor-task.schema.json"] = `${JSON.stringify(harbor, null, 2)}\n`;
  return out;
}

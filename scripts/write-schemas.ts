// Writes the JSON Schemas the extension contributes for completion (zod's toJSONSchema).
// `--check` exits 1 when the committed files differ from what the zod schemas give.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { Manifest, RunRecord, Task, TrajectoryEvent } from "../src/core/schema";

const targets: Array<[string, z.ZodType, string]> = [
  ["environment.schema.json", Manifest, "RL Env Studio environment manifest (environment.yaml)"],
  ["task.schema.json", Task, "RL Env Studio task (one line of tasks.jsonl, or task.yaml)"],
  ["trajectory-event.schema.json", TrajectoryEvent, "RL Env Studio trajectory event (one line of a rollout file)"],
  ["run.schema.json", RunRecord, "RL Env Studio run record (run.json)"],
];

export function renderSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, schema, title] of targets) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    out[file] = `${JSON.stringify({ title, ...json }, null, 2)}\n`;
  }
  return out;
}

const dir = path.join(import.meta.dirname ?? __dirname, "..", "schemas");
const check = process.argv.includes("--check");
let stale = 0;
for (const [file, text] of Object.entries(renderSchemas())) {
  const p = path.join(dir, file);
  let current = "";
  try {
    current = readFileSync(p, "utf8");
  } catch {}
  if (current === text) continue;
  if (check) {
    console.error(`schemas/${file} is stale: run npm run schema`);
    stale++;
  } else {
    writeFileSync(p, text);
    console.log(`wrote schemas/${file}`);
  }
}
if (check && stale === 0) console.log("schemas are up to date");
process.exitCode = stale ? 1 : 0;

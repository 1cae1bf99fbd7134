// Writes the JSON Schemas the extension contributes for completion (zod's toJSONSchema).
// `--check` exits 1 when the committed files differ from what the zod schemas give.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderJsonSchemas } from "../src/core/schema/json-schema";

const dir = path.join(__dirname, "..", "schemas");
const check = process.argv.includes("--check");
let stale = 0;
for (const [file, text] of Object.entries(renderJsonSchemas())) {
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

// Writes docs/reference.md from the code (tools, comparators, checks, schemas; see src/core/docs/reference.ts).
// `--check` exits 1 when the committed file differs from what the code gives.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderReference } from "../src/core/docs/reference";

const file = path.join(__dirname, "..", "docs", "reference.md");
const check = process.argv.includes("--check");

void renderReference().then((text) => {
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current === text) {
    if (check) console.log("docs/reference.md is up to date");
    return;
  }
  if (check) {
    console.error("docs/reference.md is stale: run npx tsx scripts/write-docs.ts");
    process.exitCode = 1;
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log("wrote docs/reference.md");
});

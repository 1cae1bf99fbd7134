#!/usr/bin/env node
// Prints each failed test of the TAP files given (name, location, error, the first stack
// lines) so the end of a test run says why, not only how many: CI logs are read from the tail.
// Parents whose only fault is a failed subtest are left out; the subtest is printed.
import { readFileSync } from "node:fs";

let printed = 0;
for (const file of process.argv.slice(2)) {
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i] ?? "");
    if (!m) continue;
    const indent = m[1] ?? "";
    const block = [];
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] ?? "";
      if (l.trim() === "...") break;
      block.push(l.slice(indent.length + 2));
    }
    if (block.some((l) => /^failureType: 'subtestsFailed'/.test(l))) continue;
    if (printed++ === 0) console.log("\nfailed tests:");
    console.log(`✖ ${m[2]}  (${file.replace(/^.*\//, "")})`);
    let stackLines = 0;
    let inStack = false;
    for (const l of block) {
      if (/^(duration_ms|failureType|code|expected|actual|operator|name):/.test(l)) continue;
      if (/^stack:/.test(l)) inStack = true;
      if (inStack && ++stackLines > 5) continue;
      if (l.trim() !== "" && l.trim() !== "---") console.log(`    ${l}`);
    }
  }
}
if (printed > 0) console.log("");

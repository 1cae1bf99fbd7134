// What activation costs in module loading: requiring dist/extension.js (the entry VS Code
// loads; the engine is split out) against a baseline measured in the same run, requiring
// the rollout engine bundle as well (what one bundle with everything would load).
// Each sample is a fresh Node process. Run: npx tsx test/bench/extension-activation.ts
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const dist = path.resolve(import.meta.dirname, "../../dist");
const entry = path.join(dist, "extension.js");
const engine = path.join(dist, "extension-engine.js");
if (!existsSync(entry) || !existsSync(engine)) {
  console.error("build first: npm run build");
  process.exit(1);
}
const SAMPLES = Number(process.env.SAMPLES ?? 7);

/** Milliseconds to require the given files in a fresh process (vscode is never touched before activate). */
function requireMs(files: string[]): number {
  const script = `const t=process.hrtime.bigint();for(const f of ${JSON.stringify(files)})require(f);process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const split: number[] = [];
const whole: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  split.push(requireMs([entry]));
  whole.push(requireMs([entry, engine]));
}
const s = median(split);
const w = median(whole);
console.log(`require dist/extension.js (activation path):        median ${s.toFixed(1)} ms over ${SAMPLES} fresh processes`);
console.log(`baseline: + dist/extension-engine.js (one bundle):   median ${w.toFixed(1)} ms`);
console.log(`ratio activation/baseline: ${(s / w).toFixed(2)}`);

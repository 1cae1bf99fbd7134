/**
 * Loader cost of the big hostile tasks files, as a ratio to loading a valid tasks file of
 * the same size in the same run (the baseline), and in seconds per MB for the record.
 * Run: npx tsx test/bench/validate-hostile.ts
 */
import { statSync } from "node:fs";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { HOSTILE_CASES, type HostileCase, writeHostileCase } from "../unit/environment/hostile-cases";

const BIG = [
  "200,000 broken task lines",
  "1.8 MB of lines that fail the schema",
  "huge line with a problem at its end",
  "10,000 nested [ left open",
  "YAML alias bomb",
];

function best(c: HostileCase, rounds: number): { ms: number; mb: number } {
  const { dir, cleanup } = writeHostileCase(c);
  try {
    const mb = statSync(path.join(dir, "tasks.jsonl")).size / 1e6;
    let ms = Number.POSITIVE_INFINITY;
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      loadEnvironment(dir);
      ms = Math.min(ms, performance.now() - t);
    }
    return { ms, mb };
  } finally {
    cleanup();
  }
}

for (const name of BIG) {
  const c = HOSTILE_CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name}`);
  const hostile = best(c, 3);
  // Baseline: valid tasks of the same total size.
  const line = '{"id":"tNNNNNN","prompt":"Say hi to the person over there","solution":{"answer":"hi"}}';
  const n = Math.max(1, Math.round((hostile.mb * 1e6) / (line.length + 1)));
  const valid: HostileCase = {
    name: "valid",
    files: () => ({
      "environment.yaml": "name: demo\ndomain: code\ntasks: tasks.jsonl\ntools: [bash, submit]\nreward:\n  - type: exact\n",
      "tasks.jsonl": `${Array.from({ length: n }, (_, i) => line.replace("NNNNNN", String(i).padStart(6, "0"))).join("\n")}\n`,
    }),
    expect: { file: "", line: 1, message: /./ },
  };
  const base = best(valid, 3);
  console.log(
    `${name}: ${hostile.mb.toFixed(2)} MB, ${(hostile.ms / 1000 / Math.max(hostile.mb, 0.001)).toFixed(2)} s/MB, ${(hostile.ms / base.ms).toFixed(2)}× the valid file of the same size (${base.ms.toFixed(0)} ms)`,
  );
}

/**
 * Benchmark: full-text search over a run of many rollouts (by default 1,000 rollouts of
 * about 1 MB each, about 1 GB of trajectories), served by the `rlenv view` side's index.
 * Prints the index build time and size, then query latency p50/p95 over a fixed mix of
 * rare and common words, against a baseline in the same run: the same queries answered
 * by scanning every file's text (what a search without an index does).
 *
 *   node --max-old-space-size=8192 --import tsx test/bench/viewer-search.ts [--rollouts 1000] [--kb 1024] [--dir PATH]
 *
 * Asserts nothing; figures and ratios only.
 */
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ViewService } from "../../src/core/view/server/view-service";
import { arg } from "./options";

const ROLLOUTS = Number(arg("rollouts", "1000"));
const KB = Number(arg("kb", "1024"));
const DIR = arg("dir", path.join(tmpdir(), `rlenv-search-bench-${ROLLOUTS}x${KB}`));

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A Zipf-like vocabulary: a few words everywhere, many rare ones (like real logs and prose). */
const VOCAB = Array.from({ length: 50_000 }, (_, i) => `w${i.toString(36)}`);
const COMMON = ["the", "test", "file", "error", "def", "return", "assert", "value", "passed", "failed", "import", "self"];
function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.5 ? COMMON[Math.floor(r() * COMMON.length)]! : VOCAB[Math.floor(VOCAB.length * r() ** 3)]!);
  return out.join(" ");
}

async function writeRun(): Promise<void> {
  if (existsSync(path.join(DIR, "rollouts")) && readdirSync(path.join(DIR, "rollouts")).length === ROLLOUTS) return;
  mkdirSync(path.join(DIR, "rollouts"), { recursive: true });
  writeFileSync(path.join(DIR, "run.json"), "{}");
  for (let k = 0; k < ROLLOUTS; k++) {
    const r = rng(k + 1);
    const out = createWriteStream(path.join(DIR, "rollouts", `r${String(k).padStart(5, "0")}.jsonl`));
    let seq = 0;
    let t = 1_700_000_000_000 + k * 1000;
    let bytes = 0;
    const w = (e: Record<string, unknown>) => {
      t += 7;
      const line = `${JSON.stringify({ ...e, seq: seq++, t })}\n`;
      bytes += line.length;
      return out.write(line) ? Promise.resolve() : new Promise<void>((res) => out.once("drain", () => res()));
    };
    await w({
      type: "start",
      run_id: "bench",
      rollout_id: `r${k}`,
      env: { name: "bench", hash: "h", domain: "code" },
      task: { id: `task-${k % 50}`, prompt: words(r, 40) },
      policy: { kind: "openai", model: "m" },
      sample: k % 8,
      sandbox: { backend: "docker" },
    });
    await w({ type: "message", role: "user", content: words(r, 60) });
    for (let n = 0; bytes < KB * 1024; n++) {
      await w({
        type: "message",
        role: "assistant",
        content: words(r, 50),
        tool_calls: [{ id: `c${n}`, name: "run", arguments: "{}" }],
        latency_ms: 100,
        turn: n,
      });
      await w({ type: "tool_call", id: `c${n}`, name: "run", arguments: { cmd: words(r, 6) }, turn: n });
      await w({ type: "observation", tool_call_id: `c${n}`, name: "run", output: words(r, 450), status: "ok", duration_ms: 20, turn: n });
    }
    await w({
      type: "end",
      status: "completed",
      reward: 1,
      turns: 1,
      usage: { prompt_tokens: 1, completion_tokens: 1 },
      timings: { total_ms: 1, policy_ms: 1, sandbox_ms: 1, verify_ms: 0 },
    });
    await new Promise<void>((res) => out.end(() => res()));
  }
}

/** The baseline: every rollout's text scanned for all the words, line by line. */
function scan(files: string[], query: string[]): number {
  let n = 0;
  for (const f of files)
    for (const line of readFileSync(f, "utf8").split("\n")) {
      const l = line.toLowerCase();
      if (query.every((q) => l.includes(q))) n++;
    }
  return n;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function main(): Promise<void> {
  let t = performance.now();
  await writeRun();
  const files = readdirSync(path.join(DIR, "rollouts")).map((f) => path.join(DIR, "rollouts", f));
  const totalBytes = files.reduce((s, f) => s + statSync(f).size, 0);
  console.log(
    `run: ${files.length} rollouts, ${(totalBytes / 1e6).toFixed(0)} MB (written or found in ${((performance.now() - t) / 1000).toFixed(1)} s) at ${DIR}`,
  );
  const svc = new ViewService(DIR);
  const mem = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const heap0 = mem();
  t = performance.now();
  await svc.search.prepare(files);
  const buildMs = performance.now() - t;
  global.gc?.();
  const heap1 = mem();
  const size = await svc.search.size();
  console.log(
    `index build: ${(buildMs / 1000).toFixed(1)} s (${(totalBytes / 1e6 / (buildMs / 1000)).toFixed(1)} MB/s); size: ${(size.bytes / 1e6).toFixed(0)} MB of packed postings + ${size.words.toLocaleString()} distinct words; heap and array buffers +${((heap1 - heap0) / 1e6).toFixed(0)} MB after build`,
  );
  const r = rng(99);
  const queries = [
    ...Array.from({ length: 20 }, () => VOCAB[Math.floor(VOCAB.length * (0.5 + r() / 2))]!),
    ...Array.from({ length: 15 }, () => `${VOCAB[Math.floor(VOCAB.length * r() ** 2)]} ${COMMON[Math.floor(r() * COMMON.length)]}`),
    ...Array.from(
      { length: 10 },
      () => `${VOCAB[Math.floor(200 * r())]} ${VOCAB[Math.floor(2000 * r())]} ${VOCAB[Math.floor(VOCAB.length * r())]}`,
    ),
    ...Array.from({ length: 5 }, () => COMMON[Math.floor(r() * COMMON.length)]!),
  ];
  const times: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await svc.handle("search", { dir: ".", query: q, limit: 100 });
    times.push(performance.now() - s);
  }
  console.log(
    `search (${queries.length} queries, index built): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
  );
  // Baseline: three of the same queries by scanning every file.
  const base: number[] = [];
  for (const q of queries.slice(0, 3)) {
    const s = performance.now();
    scan(files, q.split(" "));
    base.push(performance.now() - s);
  }
  const baseP50 = pct(base, 0.5);
  console.log(
    `baseline scan of every file: p50 ${baseP50.toFixed(0)} ms per query; indexed search answers ${(baseP50 / pct(times, 0.5)).toFixed(0)}× faster (p50 ratio)`,
  );
}
void main();

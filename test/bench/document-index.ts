// How long a `run` waits for the document index on the FinanceBench filings
// (../shared/datasets/financebench/pdfs, or the folder given), each case in a fresh process
// as `rlenv run` starts one, in the same run against the same cache folder:
//   cold   — empty cache: parse every file (worker threads) and build the index
//   before — parse cache warm, no saved index: read the parsed pages and rebuild the index
//            (what every `run` did before the index was saved)
//   warm   — the saved index, keyed by the corpus hash: load it (goal: well under a second)
// Also the process's heap after loading, and that a query ranks the same either way.
// Run: npx tsx test/bench/document-index.ts [DIR] [--no-cold] [--repeat N]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildCorpus } from "../../src/core/domains/document/corpus";

const QUERY = "Best Buy FY2019 merchandise inventories";

interface Once {
  ms: number;
  documents: number;
  pages: number;
  parsed: number;
  fromIndex: boolean;
  heapMb: number;
  top: string;
}

async function once(dir: string): Promise<void> {
  const t0 = performance.now();
  const c = await buildCorpus(dir, 200);
  const ms = performance.now() - t0;
  const top = c.ranker
    .search(QUERY, 5)
    .map((h) => `${c.documents[h.doc]?.name}#${h.page}`)
    .join(",");
  const out: Once = {
    ms,
    documents: c.documents.length,
    pages: c.documents.reduce((s, d) => s + d.pages.length, 0),
    parsed: c.parsed,
    fromIndex: c.fromIndex,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
    top,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function measure(dir: string, cache: string): Once {
  const stdout = execFileSync(process.execPath, ["--import", "tsx", __filename, "--once", dir], {
    env: { ...process.env, RLENV_CACHE_DIR: cache },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!) as Once;
}

function line(label: string, r: Once): string {
  return `${label.padEnd(7)} ${(r.ms / 1000).toFixed(2).padStart(6)} s  parsed ${String(r.parsed).padStart(3)}  saved index ${r.fromIndex ? "yes" : "no "}  heap ${r.heapMb.toFixed(0)} MB`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--once") return once(args[1]!);
  const dir = path.resolve(
    args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ??
      path.join(__dirname, "..", "..", "..", "shared", "datasets", "financebench", "pdfs"),
  );
  const repeatAt = args.indexOf("--repeat");
  const repeat = repeatAt >= 0 ? Number(args[repeatAt + 1] ?? 3) : 3;
  const cache = mkdtempSync(path.join(tmpdir(), "rlenv-index-bench-"));
  const indexDir = path.join(cache, "documents", "index");
  try {
    console.log(`${dir}: each case a fresh process, cache ${cache}`);
    if (!args.includes("--no-cold")) console.log(line("cold", measure(dir, cache)));
    else measure(dir, cache);
    const before: Once[] = [];
    const warm: Once[] = [];
    for (let i = 0; i < repeat; i++) {
      rmSync(indexDir, { recursive: true, force: true });
      before.push(measure(dir, cache));
      warm.push(measure(dir, cache));
    }
    for (const r of before) console.log(line("before", r));
    for (const r of warm) console.log(line("warm", r));
    const median = (xs: Once[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!.ms / 1000;
    console.log(`median: rebuild from the parse cache ${median(before).toFixed(2)} s, saved index ${median(warm).toFixed(2)} s`);
    const same = before.every((b) => b.top === warm[0]!.top) && warm.every((w) => w.top === warm[0]!.top);
    console.log(`"${QUERY}" top 5 the same from a rebuilt and a saved index: ${same ? "yes" : `NO\n${before[0]!.top}\n${warm[0]!.top}`}`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

void main();

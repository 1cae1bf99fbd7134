// PDF parsing speed on the FinanceBench filings (../shared/datasets/financebench/pdfs, or the
// folder given): the document domain's parser in worker threads on every core, against
// poppler's `pdftotext -layout` on the same files with the same number of processes at a
// time, in the same run; the figure is the ratio of the two wall times (goal: within 3×).
// Then both one file at a time, for the ratio per core.
// Run: npx tsx test/bench/document-parse.ts [PDF_DIR]   (needs poppler-utils: apt-get install -y poppler-utils)
import { execFile } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { parseInWorkers, parseThreads } from "../../src/core/domains/document/parse/pool";

const run = promisify(execFile);
const dir = path.resolve(process.argv[2] ?? path.join(__dirname, "..", "..", "..", "shared", "datasets", "financebench", "pdfs"));

async function pdftotext(files: string[], parallel: number): Promise<{ ms: number; pages: number }> {
  const t0 = performance.now();
  let next = 0;
  let pages = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < files.length) {
        const f = files[next++]!;
        const { stdout } = await run("pdftotext", ["-layout", "-q", f, "-"], { maxBuffer: 1 << 28 });
        pages += stdout.split("\f").length - 1;
      }
    }),
  );
  return { ms: performance.now() - t0, pages };
}

/** CPU seconds (user + system) pdftotext spends on the files, one at a time: bash's `times` reports its children's. */
async function pdftotextCpu(files: string[]): Promise<number> {
  let cpu = 0;
  for (const f of files) {
    const { stdout } = await run("bash", ["-c", 'pdftotext -layout -q "$1" - >/dev/null; times', "_", f]);
    const line = stdout.trim().split("\n")[1] ?? "";
    for (const m of line.matchAll(/(\d+)m([\d.]+)s/g)) cpu += Number(m[1]) * 60 + Number(m[2]);
  }
  return cpu;
}

async function ours(files: string[], threads: number): Promise<{ ms: number; pages: number; failed: number }> {
  process.env.RLENV_PARSE_THREADS = String(threads);
  const t0 = performance.now();
  const out = await parseInWorkers(files.map((file) => ({ file, format: "pdf" as const })));
  const ms = performance.now() - t0;
  return { ms, pages: out.reduce((s, r) => s + (Array.isArray(r) ? r.length : 0), 0), failed: out.filter((r) => !Array.isArray(r)).length };
}

async function main(): Promise<void> {
  try {
    await run("pdftotext", ["-v"]);
  } catch {
    console.log("pdftotext is not installed (apt-get install -y poppler-utils): skipped");
    return;
  }
  const files = readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith(".pdf"))
    .map((f) => path.join(dir, f));
  const mb = files.reduce((s, f) => s + statSync(f).size, 0) / 1e6;
  const cores = parseThreads(files.length);
  console.log(`${files.length} PDFs, ${mb.toFixed(1)} MB, ${cores} cores`);
  // Warm the disk cache and the worker's module load once, untimed.
  await pdftotext(files.slice(0, 2), 2);
  await ours(files.slice(0, 2), 2);
  const p = await pdftotext(files, cores);
  const o = await ours(files, cores);
  console.log(
    `all cores: pdftotext ${(p.ms / 1000).toFixed(1)} s (${p.pages} pages), rlenv ${(o.ms / 1000).toFixed(1)} s (${o.pages} pages, ${o.failed} unreadable): ratio ${(o.ms / p.ms).toFixed(2)}× (goal ≤ 3×)`,
  );
  const p1 = await pdftotext(files, 1);
  const o1 = await ours(files, 1);
  console.log(
    `one at a time: pdftotext ${(p1.ms / 1000).toFixed(1)} s, rlenv ${(o1.ms / 1000).toFixed(1)} s: ratio ${(o1.ms / p1.ms).toFixed(2)}×`,
  );
  // CPU time does not depend on what else the machine runs: the fairest single figure on a busy host.
  const c0 = process.cpuUsage();
  await ours(files, 1);
  const c = process.cpuUsage(c0);
  const oursCpu = (c.user + c.system) / 1e6;
  const theirsCpu = await pdftotextCpu(files);
  console.log(`CPU time: pdftotext ${theirsCpu.toFixed(1)} s, rlenv ${oursCpu.toFixed(1)} s: ratio ${(oursCpu / theirsCpu).toFixed(2)}×`);
  console.log(`as a run does it (rlenv on every core) against one pdftotext process: ratio ${(o.ms / p1.ms).toFixed(2)}×`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

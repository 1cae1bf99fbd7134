/**
 * Benchmark: large runs in the viewer, in real Chromium, each page served by the real
 * `rlenv view` (node dist/cli.js view …, spawned fresh for every measurement so no index is warm):
 *
 *  - the dashboard of a 10,000-rollout run: from navigation to the table's first rows painted,
 *    then clearing a filter (from the input event to the full table painted again), each with
 *    the longest task the page ran meanwhile (a task over 50 ms is one the user feels);
 *  - comparing a 100 MB, 10,000-step rollout with itself: from navigation to the first aligned
 *    lines painted with their summaries, against opening that rollout alone (its first step painted).
 *
 * Baselines measured in the same run: the dashboard of a 100-rollout run (how much a 100 times
 * larger run costs), opening one rollout (what a compare should match), and with
 * `--before DIST` the same pages from an earlier build's dist/ (before / after), alternated.
 *
 *   npx tsx test/bench/viewer-large.ts [--rollouts 10000] [--reps 3] [--before /path/to/old/dist] [--skip-compare] [--skip-dashboard] [--cold]
 *
 * The view caches each rollout's dashboard summary by file version (under $RLENV_CACHE_DIR/view; here a
 * folder of the bench's own): an open after the first of a run reads no rollout file. `--cold` gives each
 * dashboard open an empty cache, so every open reads and parses every rollout, as a run's first open does.
 *
 * Needs `npm run build` and /usr/bin/chromium. Prints figures and ratios; asserts nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { launch } from "../e2e/support/browser";
import { writeLargeRun } from "../fixtures/large-run";
import { writeBigRollout } from "../fixtures/trajectories";
import { arg } from "./options";

const ROLLOUTS = Number(arg("rollouts", "10000"));
const REPS = Number(arg("reps", "3"));
const BEFORE = arg("before", undefined);
const COLD = process.argv.includes("--cold");
const DIST = path.join(__dirname, "../../dist");
const WORK = path.join(tmpdir(), "rlenv-bench-viewer");

/** Long tasks of the page, collected from its first script on (the observer is installed before the app runs). */
const LONG_TASKS = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); }).observe({ type: "longtask" });`;

/** The longest task that started at or after `from` (page clock), in ms (0 when none passed 50 ms). */
const longestSince = (page: Page, from: number) =>
  page.evaluate<number>(`Math.max(0, ...window.__long.filter(([s, d]) => s + d >= ${from}).map(([, d]) => d))`);

/** Starts `node CLI view TARGET --json` and resolves with the URL it prints. */
function view(cli: string, target: string, cacheDir = path.join(WORK, "view-cache")): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [cli, "view", target, "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RLENV_CACHE_DIR: cacheDir },
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("exit", (code) => reject(new Error(`rlenv view exited (${code}) before printing its URL: ${err}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  await exited;
}

/**
 * In the page: waits (frame by frame) until `done` holds, then for the frame after it to be
 * painted; resolves with the page clock then. The expression is the page's, so the time is the
 * user's, not the test's polling.
 */
const paintedWhen = (done: string, timeoutMs = 120_000) => `new Promise((resolve, reject) => {
  const end = performance.now() + ${timeoutMs};
  const tick = () => {
    if (${done}) requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
    else if (performance.now() > end) reject(new Error("timed out waiting for: " + ${JSON.stringify(done)}));
    else requestAnimationFrame(tick);
  };
  tick();
})`;

const TABLE_ROWS = `document.querySelectorAll(".rollout-table tbody tr[data-file]")`;
/** The table's "N of M rollouts", digits without separators. */
const COUNTER = `(document.querySelector(".rollouts .toolbar .meta-item")?.textContent ?? "").replace(/,/g, "")`;

interface DashboardRun {
  open: number;
  openLong: number;
  clear: number;
  clearLong: number;
}

/** One dashboard: open it, filter to one task, clear the filter. */
async function dashboard(page: Page, cli: string, dir: string, n: number): Promise<DashboardRun> {
  const cold = COLD ? mkdtempSync(path.join(WORK, "cold-cache-")) : undefined;
  const { url, child } = await view(cli, dir, cold);
  try {
    await page.goto(url, { waitUntil: "commit" });
    const open = await page.evaluate<number>(paintedWhen(`${TABLE_ROWS}.length > 0 && ${COUNTER}.includes("of ${n} ")`));
    // Navigation start is the page clock's 0: `open` is the time from the request to the painted table.
    const openLong = await longestSince(page, 0);
    await page.fill("input[aria-label=filter]", "task-0001-s1");
    await page.evaluate(paintedWhen(`${TABLE_ROWS}.length > 0 && !${COUNTER}.startsWith("${n} ")`));
    const t0 = await page.evaluate<number>("performance.now()");
    const cleared = await page.evaluate<number>(`(() => {
      const input = document.querySelector("input[aria-label=filter]");
      const t = performance.now();
      input.value = "";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      return ${paintedWhen(`${COUNTER}.startsWith("${n} of")`)}.then((p) => p - t);
    })()`);
    const clearLong = await longestSince(page, t0);
    await page.goto("about:blank");
    return { open, openLong, clear: cleared, clearLong };
  } finally {
    await stop(child);
    if (cold) rmSync(cold, { recursive: true, force: true });
  }
}

interface CompareRun {
  compare: number;
  compareLong: number;
  lines: number;
  one: number;
}

/** The big rollout compared with itself (first lines painted with summaries), and opened alone (first step painted). */
async function compare(page: Page, cli: string, file: string): Promise<CompareRun> {
  let r = await view(cli, file);
  let compareMs: number;
  let compareLong: number;
  let lines: number;
  try {
    const rel = `rollouts/${path.basename(file)}`;
    await page.goto(`${r.url}&compare=${encodeURIComponent(rel)}`, { waitUntil: "commit" });
    const filled = `[...document.querySelectorAll(".cmp-line .cmp-cell .r2")].filter((e) => e.textContent !== "…").length >= 4`;
    compareMs = await page.evaluate<number>(paintedWhen(filled, 60_000)).catch(async (e: Error) => {
      const shown = await page.evaluate<string>(
        `document.querySelector(".compare-panel")?.innerText.slice(0, 300) ?? "(no compare panel)"`,
      );
      process.stdout.write(
        `  compare: no aligned lines painted (${e.message.split("\n")[0]}); the panel shows: ${JSON.stringify(shown)}\n`,
      );
      return Number.NaN;
    });
    compareLong = await longestSince(page, 0);
    lines = await page.evaluate<number>(`document.querySelectorAll(".cmp-line").length`);
    await page.goto("about:blank");
  } finally {
    await stop(r.child);
  }
  r = await view(cli, file);
  try {
    await page.goto(r.url, { waitUntil: "commit" });
    await page.waitForSelector("body[data-first-paint-ms]", { timeout: 60_000 });
    const one = Number(await page.getAttribute("body", "data-first-paint-ms"));
    await page.goto("about:blank");
    return { compare: compareMs, compareLong, lines, one };
  } finally {
    await stop(r.child);
  }
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};
const fmt = (x: number) => (Number.isNaN(x) ? "   n/a" : x.toFixed(0).padStart(6));

async function newPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.addInitScript(LONG_TASKS);
  return page;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(DIST, "cli.js"))) throw new Error("dist/cli.js is missing: run `npm run build` first");
  const builds: Array<[string, string]> = [["after", path.join(DIST, "cli.js")]];
  if (BEFORE) builds.unshift(["before", path.join(path.resolve(BEFORE), "cli.js")]);
  const big = writeLargeRun(path.join(WORK, `run-${ROLLOUTS}`), { rollouts: ROLLOUTS, tasks: Math.max(1, Math.round(ROLLOUTS / 20)) });
  const small = writeLargeRun(path.join(WORK, "run-100"), { rollouts: 100, tasks: 5 });
  const bigFile = path.join(WORK, "bench", "rollouts", "big-10000-100.jsonl");
  if (!existsSync(bigFile)) await writeBigRollout(bigFile, 10_000, 100 * 1024 * 1024);

  const browser = await launch();
  process.stdout.write(`Chromium ${browser.version()}; ${REPS} runs each, alternated; times in ms on the page's clock\n`);
  try {
    const page = await newPage(browser);
    if (!process.argv.includes("--skip-dashboard")) {
      const runs = new Map<string, DashboardRun[]>();
      for (let i = 0; i < REPS; i++)
        for (const [name, cli] of builds)
          for (const [label, dir, n] of [
            [`${name} ${ROLLOUTS}`, big, ROLLOUTS],
            [`${name} 100`, small, 100],
          ] as const) {
            const r = await dashboard(page, cli, dir, n);
            process.stdout.write(`  ${label}: open ${r.open.toFixed(0)} ms, clear ${r.clear.toFixed(0)} ms\n`);
            runs.set(label, [...(runs.get(label) ?? []), r]);
          }
      process.stdout.write(
        `\ndashboard (rollouts: open = navigation to table painted; clear = clearing a one-task filter to the full table painted; longest task in each):\n`,
      );
      for (const [label, rs] of runs) {
        const m = (k: keyof DashboardRun) => median(rs.map((r) => r[k]));
        process.stdout.write(
          `${label.padEnd(16)} open ${fmt(m("open"))} (longest task ${fmt(m("openLong"))})   clear filter ${fmt(m("clear"))} (longest task ${fmt(m("clearLong"))});  opens ${rs.map((r) => r.open.toFixed(0)).join(", ")}\n`,
        );
      }
      for (const [name] of builds) {
        const a = runs.get(`${name} ${ROLLOUTS}`)!;
        const b = runs.get(`${name} 100`)!;
        process.stdout.write(
          `${name}: ${ROLLOUTS} / 100 rollouts: open ×${(median(a.map((r) => r.open)) / median(b.map((r) => r.open))).toFixed(2)}, clear ×${(median(a.map((r) => r.clear)) / median(b.map((r) => r.clear))).toFixed(2)}\n`,
        );
      }
      if (BEFORE) {
        const m = (name: string, k: keyof DashboardRun) => median(runs.get(`${name} ${ROLLOUTS}`)!.map((r) => r[k]));
        process.stdout.write(
          `before / after (${ROLLOUTS} rollouts): open ×${(m("before", "open") / m("after", "open")).toFixed(2)}, clear ×${(m("before", "clear") / m("after", "clear")).toFixed(2)}, longest task on clear ×${(m("before", "clearLong") / Math.max(1, m("after", "clearLong"))).toFixed(1)}\n`,
        );
      }
    }
    if (!process.argv.includes("--skip-compare")) {
      const runs = new Map<string, CompareRun[]>();
      for (let i = 0; i < REPS; i++)
        for (const [name, cli] of builds) runs.set(name, [...(runs.get(name) ?? []), await compare(page, cli, bigFile)]);
      process.stdout.write(
        `\ncompare a 100 MB, 10,000-step rollout with itself (navigation to the first aligned lines painted) vs opening it (first step painted):\n`,
      );
      for (const [name, rs] of runs) {
        const c = median(rs.map((r) => r.compare));
        const o = median(rs.map((r) => r.one));
        process.stdout.write(
          `${name.padEnd(8)} compare ${fmt(c)} (longest task ${fmt(median(rs.map((r) => r.compareLong)))}, ${median(rs.map((r) => r.lines))} lines in the DOM)   open one ${fmt(o)}   compare / open ×${(c / o).toFixed(2)};  compares ${rs.map((r) => (Number.isNaN(r.compare) ? "none" : r.compare.toFixed(0))).join(", ")}\n`,
        );
      }
    }
  } finally {
    await browser.close();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

/**
 * Where the run dashboard's main thread goes while a large run opens, in real Chromium with the
 * performance timeline recorded: for each open (the built `rlenv view RUN`, spawned fresh), the
 * time to the table's first rows painted, the dashboard bundle's start-up (its module compiled and evaluated:
 * compile and top-level code, classic zod's schema building included when it is bundled) and
 * every renderer main-thread task over 50 ms, with what ran inside it.
 *
 *   npx tsx test/bench/dashboard-open-trace.ts [--rollouts 10000] [--reps 3] [--before /path/to/old/dist] [--cpu-prof FILE]
 *
 * The run folder and the summary cache are viewer-large.ts's, so an open after the first is a
 * repeat open (no rollout file read), the case the dashboard's own work shows in. With `--before`
 * each rep opens the old build then this one. `--cpu-prof FILE` saves the page's CPU profile of
 * the last open of this build (open it in Chrome's DevTools). Prints; asserts nothing.
 */
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { launch, rlenvView } from "../e2e/support/browser";
import { writeLargeRun } from "../fixtures/large-run";
import { arg } from "./options";
import type { TraceEvent } from "./trace-event";

const ROLLOUTS = Number(arg("rollouts", "10000"));
const REPS = Number(arg("reps", "3"));
const BEFORE = arg("before", undefined);
const CPU_PROF = arg("cpu-prof", undefined);
const WORK = path.join(tmpdir(), "rlenv-bench-viewer");

const TABLE_DONE = (n: number) =>
  `document.querySelectorAll(".rollout-table tbody tr[data-file]").length > 0 && (document.querySelector(".rollouts .toolbar .meta-item")?.textContent ?? "").replace(/,/g, "").includes("of ${n} ") && document.querySelector(".card-passk tbody tr") !== null`;

/** Resolves with the page clock once `done` holds and the frame after it is painted. */
const paintedWhen = (done: string) => `new Promise((resolve, reject) => {
  const end = performance.now() + 120000;
  const tick = () => {
    if (${done}) requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
    else if (performance.now() > end) reject(new Error("timed out"));
    else requestAnimationFrame(tick);
  };
  tick();
})`;

interface OpenTrace {
  painted: number;
  startup: number;
  longest: number;
  lines: string[];
}

async function open(page: Page, cli: string, dir: string, profile: string | undefined): Promise<OpenTrace> {
  const served = await rlenvView(dir, cli, { RLENV_CACHE_DIR: path.join(WORK, "view-cache") });
  const url = served.url;
  const browser = page.context().browser()!;
  const cdp = profile ? await page.context().newCDPSession(page) : null;
  try {
    if (cdp) await cdp.send("Profiler.enable").then(() => cdp.send("Profiler.start"));
    await browser.startTracing(page, { categories: ["devtools.timeline", "v8.execute", "toplevel", "blink.user_timing", "loading"] });
    await page.goto(url, { waitUntil: "commit" });
    const painted = await page.evaluate<number>(paintedWhen(TABLE_DONE(ROLLOUTS)));
    const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
    if (cdp && profile) writeFileSync(profile, JSON.stringify((await cdp.send("Profiler.stop")).profile));
    await page.goto("about:blank");
    const ev = trace.traceEvents;
    // The page's main thread is the one that compiled the dashboard bundle (a module script: dashboard.js, or
    // the page itself where the server sends the app inside it); times from its navigation.
    const pageUrl = new URL(url);
    const isBundle = (u: string) =>
      /dashboard\.js/.test(u) ||
      (u.startsWith(pageUrl.origin) && new URL(u).searchParams.get("token") === pageUrl.searchParams.get("token"));
    const bundle = ev.find((e) => e.name === "v8.compileModule" && isBundle(e.args?.data?.url ?? ""));
    if (!bundle) throw new Error("the trace has no compilation of the dashboard's bundle");
    const nav = ev.find((e) => e.name === "navigationStart" && e.pid === bundle.pid && e.tid === bundle.tid) ?? bundle;
    const main = ev.filter((e) => e.pid === bundle.pid && e.tid === bundle.tid && e.ph === "X");
    // Start-up: the module's compilation and its evaluation (top-level code, up to main()'s first await).
    const startup = main
      .filter((e) => e.name === "v8.compileModule" || e.name === "v8.evaluateModule")
      .reduce((s, e) => s + (e.dur ?? 0) / 1000, 0);
    const tasks = main.filter((e) => (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") && (e.dur ?? 0) > 50_000);
    const lines = tasks.map((t) => {
      const inner = main
        .filter((x) => x !== t && x.ts >= t.ts && x.ts < t.ts + (t.dur ?? 0) && x.name !== t.name && (x.dur ?? 0) > 3000)
        .map((x) => `${x.name}${x.args?.data?.url ? `(${path.basename(x.args.data.url)})` : ""} ${((x.dur ?? 0) / 1000).toFixed(0)}`)
        .slice(0, 8)
        .join(", ");
      return `    at ${((t.ts - nav.ts) / 1000).toFixed(0).padStart(5)} ms: task ${((t.dur ?? 0) / 1000).toFixed(0)} ms: ${inner}`;
    });
    const longest = Math.max(0, ...tasks.map((t) => (t.dur ?? 0) / 1000));
    return { painted, startup, longest, lines };
  } finally {
    await cdp?.detach();
    await served.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const dist = path.join(__dirname, "../../dist");
  if (!existsSync(path.join(dist, "cli.js"))) throw new Error("dist/cli.js is missing: run `npm run build` first");
  const builds: Array<[string, string]> = [["after", path.join(dist, "cli.js")]];
  if (BEFORE) builds.unshift(["before", path.join(path.resolve(BEFORE), "cli.js")]);
  const dir = writeLargeRun(path.join(WORK, `run-${ROLLOUTS}`), { rollouts: ROLLOUTS, tasks: Math.max(1, Math.round(ROLLOUTS / 20)) });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // One open to fill the summary cache: the reps below are repeat opens.
  await open(page, builds[builds.length - 1]![1], dir, undefined);
  const runs = new Map<string, OpenTrace[]>();
  try {
    for (let i = 0; i < REPS; i++)
      for (const [name, cli] of builds) {
        const r = await open(page, cli, dir, name === "after" && i === REPS - 1 ? CPU_PROF : undefined);
        process.stdout.write(
          `${name} #${i + 1}: table painted ${r.painted.toFixed(0)} ms, bundle start-up ${r.startup.toFixed(0)} ms, longest task ${r.longest.toFixed(0)} ms\n${r.lines.join("\n")}\n`,
        );
        runs.set(name, [...(runs.get(name) ?? []), r]);
      }
  } finally {
    await browser.close();
  }
  for (const [name, rs] of runs)
    process.stdout.write(
      `${name.padEnd(7)} medians over ${rs.length}: table painted ${median(rs.map((r) => r.painted)).toFixed(0)} ms, bundle start-up ${median(rs.map((r) => r.startup)).toFixed(0)} ms, longest task ${median(rs.map((r) => r.longest)).toFixed(0)} ms\n`,
    );
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

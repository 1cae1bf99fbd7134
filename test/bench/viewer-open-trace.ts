/**
 * Where the time from `rlenv view FILE` to the first painted step goes, one run at a time:
 * spawns the built CLI (dist/cli.js), opens the printed URL in Chromium with the performance
 * timeline recorded, and prints one line per stage on the spawn's clock (the URL printed, the
 * page's response, each script's evaluation, the init data block, the first step drawn, the
 * paint), then the renderer's main-thread tasks over 5 ms.
 *
 *   npx tsx test/bench/viewer-open-trace.ts FILE [--reps 3] [--trace-out trace.json] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` runs the server under `node --cpu-prof` (the profile is written when it stops).
 * Needs `npm run build` and /usr/bin/chromium. Prints; asserts nothing.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { launch } from "../e2e/support/browser";
import type { TraceEvent } from "./trace-event";
import { waitForPaint } from "./wait-for-paint";

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const FILE = argv[0];
const REPS = Number(opt("reps") ?? 3);
const CLI = path.join(__dirname, "../../dist/cli.js");

function spawnView(file: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const prof = opt("cpu-prof");
  const args = [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), CLI, "view", file, "--json"];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const stop = () =>
    new Promise<void>((r) => {
      child.once("exit", () => r());
      child.kill("SIGINT");
    });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line && out.includes("\n")) resolve({ url: (JSON.parse(line) as { url: string }).url, stop });
    });
    child.once("exit", (code) => reject(new Error(`rlenv view exited (${code})`)));
  });
}

async function main(): Promise<void> {
  if (!FILE) throw new Error("usage: viewer-open-trace.ts FILE [--reps N]");
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  for (let rep = 0; rep < REPS; rep++) {
    const spawnEpoch = performance.timeOrigin + performance.now();
    const view = await spawnView(FILE);
    const urlAt = performance.timeOrigin + performance.now() - spawnEpoch;
    await browser.startTracing(page, {
      categories: ["devtools.timeline", "blink.user_timing", "loading", "v8.execute", "disabled-by-default-devtools.timeline"],
    });
    await page.goto(view.url);
    await waitForPaint(page, 60_000);
    const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
    const t = (await page.evaluate(`(() => { const b = document.body.dataset; const n = performance.getEntriesByType("navigation")[0];
      return { origin: performance.timeOrigin, script: +b.scriptStartMs, step: +b.firstStepMs, paint: +b.firstPaintMs,
        responseStart: n.responseStart, responseEnd: n.responseEnd, domInteractive: n.domInteractive,
        resources: performance.getEntriesByType("resource").map((e) => [new URL(e.name).pathname, e.startTime, e.responseEnd]) }; })()`)) as {
      origin: number;
      script: number;
      step: number;
      paint: number;
      responseStart: number;
      responseEnd: number;
      domInteractive: number;
      resources: [string, number, number][];
    };
    await view.stop();
    const off = t.origin - spawnEpoch; // page clock -> spawn clock
    const row = (label: string, pageMs: number) => `  ${(pageMs + off).toFixed(0).padStart(6)} ms  ${label}\n`;
    let s = `run ${rep + 1}: URL printed at ${urlAt.toFixed(0)} ms; navigation starts at ${off.toFixed(0)} ms\n`;
    s += row("page response starts", t.responseStart);
    for (const [p, a, b] of t.resources) s += `  ${(a + off).toFixed(0).padStart(6)} ms  fetch ${p} (done ${(b + off).toFixed(0)})\n`;
    s += row("page whole (init data block in)", t.responseEnd);
    s += row("DOM interactive", t.domInteractive);
    s += row("bundle starts running", t.script);
    s += row("first step drawn", t.step);
    s += row("first step painted", t.paint);
    // The renderer's main thread: tasks over 5 ms, on the same clock (trace ts is µs; navigationStart anchors it).
    const ev = trace.traceEvents;
    const nav = ev.find((e) => e.name === "navigationStart" && e.args?.data?.documentLoaderURL?.startsWith("http"));
    if (nav) {
      const main = ev.filter((e) => e.pid === nav.pid && e.tid === nav.tid && e.ph === "X" && (e.dur ?? 0) > 5000);
      const top = main.filter((e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask");
      for (const e of top) {
        const inner = main
          .filter((x) => x !== e && x.ts >= e.ts && x.ts < e.ts + (e.dur ?? 0) && x.name !== e.name)
          .map(
            (x) =>
              `${x.name}${x.args?.data?.url ? `(${path.basename(x.args.data.url)})` : ""} ${((x.tdur ?? x.dur ?? 0) / 1000).toFixed(0)}`,
          )
          .slice(0, 6)
          .join(", ");
        const at = (e.ts - nav.ts) / 1000 + off;
        if (at < t.paint + off + 50)
          s += `  ${at.toFixed(0).padStart(6)} ms  task ${((e.dur ?? 0) / 1000).toFixed(0)} ms (${((e.tdur ?? 0) / 1000).toFixed(0)} ms CPU): ${inner}\n`;
      }
      const out = opt("trace-out");
      if (out) writeFileSync(out, JSON.stringify(trace));
    }
    process.stdout.write(s);
    await page.goto("about:blank");
  }
  await browser.close();
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

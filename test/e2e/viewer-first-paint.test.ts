import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { writeBigRollout } from "../fixtures/trajectories";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * What the trajectory viewer does on its way to the first painted step, opened through
 * `rlenv view` (the built CLI) in Chromium: no request of its own (init, the first screen and
 * the app's bundle and styles all come inside the page), and no locale number formatting,
 * whose set-up costs tens of ms on a page's first call.
 */
const skip = missing("chromium");
let browser: Browser;
let file: string;
const servers: ViewProcess[] = [];

before(async () => {
  if (skip) return;
  file = path.join(mkdtempSync(path.join(tmpdir(), "rlenv-first-paint-")), "rollouts", "big.jsonl");
  // Larger than the server's first chunk: the rest is still to be read when the page paints.
  await writeBigRollout(file, 600, 6 * 1024 * 1024);
  browser = await launch();
});
after(async () => {
  for (const s of servers) s.stop();
  await browser?.close();
});

test("first step of a large rollout: painted with no request from the page, the app inside the page, no locale formatting, no classic zod", {
  skip,
}, async () => {
  const v = await rlenvView(file);
  servers.push(v);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = watchErrors(page);
  // Counts calls into the browser's number formatting (Number#toLocaleString, Intl.NumberFormat) until the first paint.
  await page.addInitScript(`(() => {
    window.__localeCalls = 0;
    const count = () => { if (!document.body || !document.body.dataset.firstPaintMs) window.__localeCalls++; };
    const own = Number.prototype.toLocaleString;
    Number.prototype.toLocaleString = function (...a) { count(); return own.apply(this, a); };
    const NF = Intl.NumberFormat;
    Intl.NumberFormat = function (...a) { count(); return new NF(...a); };
  })()`);
  await page.goto(v.url);
  await page.waitForSelector("body[data-first-paint-ms]");
  // Which requests the page started before its first step was drawn, judged in the page on one clock
  // (resource timing against performance.now()): an event seen later in this process could belong to a
  // request made after the paint, such as the rest of the file being fetched.
  const beforePaint = await page.evaluate<string[]>(`(() => {
    const drawn = Number(document.body.dataset.firstStepMs);
    return ["/", ...performance.getEntriesByType("resource").filter((e) => e.startTime <= drawn).map((e) => new URL(e.name).pathname)];
  })()`);
  assert.match(String(await page.locator(".detail .step[data-row='0']").textContent()), /Step 0|A very long task/);
  assert.match(String(await page.locator(".timeline .count").textContent()), /^[\d,]+ steps/);

  assert.deepEqual(
    beforePaint.filter((p) => p.startsWith("/api/")),
    [],
    `the page asked the server before its first paint: ${beforePaint.join(", ")}`,
  );
  // The app comes inside the page: no script or stylesheet is fetched before the first paint.
  assert.deepEqual(
    beforePaint.filter((p) => p.startsWith("/assets/")),
    [],
    `the page fetched assets before its first paint: ${beforePaint.join(", ")}`,
  );
  const inline = await page.evaluate<{ src: string; text: string }[]>(
    `[...document.querySelectorAll("script[type=module]")].map((s) => ({ src: s.getAttribute("src") ?? "", text: s.textContent ?? "" }))`,
  );
  assert.equal(inline.length, 1, JSON.stringify(inline.map((s) => s.src)));
  assert.equal(inline[0]?.src, "");
  assert.ok((inline[0]?.text.length ?? 0) > 10_000, "the app's bundle is not inside the page");
  // The script run before the first paint parses with zod/mini: classic zod (192 KB, and the cost of
  // building each schema with its methods) is not in it. Classic zod attaches `superRefine` to every schema.
  assert.doesNotMatch(inline[0]?.text ?? "", /superRefine/, "the page's app carries classic zod");
  assert.equal(await page.evaluate<number>("window.__localeCalls"), 0, "locale number formatting before the first paint");
  assert.deepEqual(errors, []);
  await screenshot(page, "viewer-first-paint");
  await page.close();
});

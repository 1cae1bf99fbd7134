import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type FixtureRuns, writeFixtureRuns } from "../fixtures/trajectories";
import { missing } from "../support/services";
import { launch, rlenvView, screenshot, type ViewProcess, watchErrors } from "./support/browser";

/**
 * The viewer and dashboard in Debian's Chromium, opened through `rlenv view` (the built
 * CLI) on fixture runs of each domain: click through steps and panels, assert on the
 * DOM, save a screenshot of each view.
 */
const skip = missing("chromium");
let browser: Browser;
let runs: FixtureRuns;
const servers: ViewProcess[] = [];

async function open(target: string): Promise<{ page: Page; errors: string[] }> {
  const v = await rlenvView(target);
  servers.push(v);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = watchErrors(page);
  await page.goto(v.url);
  return { page, errors };
}

describe("viewer in Chromium", { skip }, () => {
  before(async () => {
    runs = writeFixtureRuns(mkdtempSync(path.join(tmpdir(), "rlenv-e2e-")));
    browser = await launch();
  });
  after(async () => {
    for (const s of servers) s.stop();
    await browser?.close();
  });

  test("code rollout: timeline, step detail with ANSI output, reward, Monaco diff", async () => {
    const { page, errors } = await open(path.join(runs.code, "rollouts", "stats-mean-s0.jsonl"));
    await page.waitForSelector(".vrow[data-index='3']");
    assert.match(String(await page.locator(".timeline .count").textContent()), /7 steps/);
    await page.click(".vrow[data-index='1']");
    await page.waitForSelector(".detail .step[data-row='1']");
    const obs = page.locator(".detail .event.observation").first();
    assert.match(String(await obs.textContent()), /exit\s+1/);
    const red = await obs.locator("pre.term span[style*='ansi-red']").count();
    assert.ok(red > 0, "ANSI red rendered as coloured spans");
    await page.keyboard.press("ArrowDown");
    await page.waitForSelector(".detail .step[data-row='2']");
    assert.match(String(await page.locator(".detail .event.tool-call pre.json").first().textContent()), /"path": "stats.py"/);
    assert.equal(await page.locator(".detail .md strong code").count(), 1, "Markdown bold code rendered as elements");
    await page.click(".vrow[data-index='3']");
    await page.waitForSelector(".detail .step[data-row='3']");
    assert.match(String(await page.locator(".detail .trunc").textContent()), /kept 16,000 of 18,000/);
    await screenshot(page, "code-steps");
    await page.click("button[data-tab='reward']");
    await page.waitForSelector(".reward-table");
    assert.match(String(await page.locator(".reward-table").textContent()), /hidden tests[\s\S]*tests passed/);
    await page.click("button[data-tab='code']");
    await page.waitForSelector(".monaco-diff-editor .view-line");
    await page.waitForSelector(".monaco-diff-editor .line-delete, .monaco-diff-editor .char-delete", { timeout: 15_000 });
    assert.deepEqual(await page.locator(".files .item").allTextContents(), ["Mstats.py", "Atest_empty.py"]);
    assert.match(String(await page.locator(".monaco-diff-editor .modified .view-lines").textContent()), /def\smean/);
    await screenshot(page, "code-diff");
    await page.locator(".files .item").nth(1).click();
    await page.locator(".monaco-diff-editor .modified .view-lines", { hasText: "pytest.raises" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("3D rollout: scene drawn with WebGL, failing check outlined, selection shows properties, scrubber", async () => {
    const dir = path.join(runs.scene3d, "rollouts");
    // A rollout where the lamp check failed (reward below 1).
    const failing = readdirSync(dir).find((f) => f.startsWith("two-chairs") || f.startsWith("table-lamp"));
    assert.ok(failing);
    let target = "";
    for (const f of readdirSync(dir)) {
      const text = (await import("node:fs")).readFileSync(path.join(dir, f), "utf8");
      if (text.includes('"lamp floats')) target = path.join(dir, f);
    }
    assert.ok(target, "the fixture run has a failing scene rollout");
    const { page, errors } = await open(target);
    await page.waitForSelector("button[data-tab='scene']");
    await page.click("button[data-tab='scene']");
    await page.waitForSelector(".scene-canvas canvas");
    await page.locator(".scene-side .obj").nth(6).waitFor();
    assert.equal(await page.locator(".scene-side .obj").count(), 7);
    assert.match(String(await page.locator(".scene-side").textContent()), /✗ lamp on the table \(lamp, table_top\): lamp floats/);
    assert.equal(await page.locator(".scene-side .obj.fail").count(), 2);
    // The canvas holds a WebGL2 context (three.js) and is not blank: count distinct colours in it.
    const webgl = await page.evaluate<{ w: number; colours: number } | null>(`(() => {
      const c = document.querySelector(".scene-canvas canvas");
      const gl = c.getContext("webgl2");
      if (!gl) return null;
      const px = new Uint8Array(c.width * c.height * 4);
      gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const seen = new Set();
      for (let i = 0; i < px.length; i += 4 * 97) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      return { w: c.width, colours: seen.size };
    })()`);
    assert.ok(webgl && webgl.w > 100, "a WebGL2 canvas was drawn");
    assert.ok(webgl.colours > 20, `the scene is drawn, not blank (${webgl.colours} colours)`);
    // Click the middle of the canvas: the table top sits there after framing.
    const box = (await page.locator(".scene-canvas canvas").boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForSelector(".scene-side table.props");
    assert.match(String(await page.locator(".scene-side table.props").textContent()), /position/);
    await page.locator(".scene-side .obj", { hasText: "lamp" }).click();
    assert.match(String(await page.locator(".scene-side table.props").textContent()), /name\s*lamp\s*kind\s*cylinder/);
    assert.ok((await page.locator(".renders img").count()) >= 1, "render_view image beside the scene");
    await screenshot(page, "scene3d");
    await page.locator(".scrubber input[type=range]").fill("2");
    await page.locator(".scrubber .meta-item", { hasText: "3 objects" }).waitFor();
    assert.deepEqual(errors, []);
  });

  test("document rollout: pages read with cited spans highlighted, report vs gold", async () => {
    const { page, errors } = await open(path.join(runs.document, "rollouts", "acme-10k-s0.jsonl"));
    await page.waitForSelector("button[data-tab='documents']");
    await page.click("button[data-tab='documents']");
    await page.waitForSelector(".page mark.m-cite");
    const marks = await page.locator(".page mark.m-cite").allTextContents();
    assert.ok(marks.includes("$4,210 million") && marks.includes("Springfield, Illinois"), marks.join("|"));
    assert.equal(await page.locator(".page").count(), 3);
    const fields = await page.locator("table.fields tbody tr td:first-child").allTextContents();
    assert.deepEqual(fields, ["revenue_2024", "net_income", "headquarters"]);
    await screenshot(page, "document");
    assert.deepEqual(errors, []);
  });

  test("dashboard: charts, pass@k, sort and filter the table, click opens the viewer, compare two", async () => {
    const { page, errors } = await open(runs.code);
    await page.waitForSelector("table.rollout-table tbody tr");
    assert.equal(await page.locator("table.rollout-table tbody tr").count(), 12);
    // The cards come with the run's aggregates, which may follow the table's first page: wait for the histogram.
    await page.waitForSelector(".card-rewards svg rect", { state: "attached" });
    assert.equal(await page.locator(".card-rewards svg rect").count(), 10);
    // pass@k comes with the aggregates, which may follow the table's first page: wait for its rows.
    const passk = page.locator("table.passk tbody td:first-child");
    for (let i = 0; i < 300 && (await passk.count()) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await passk.allTextContents(), ["parse-csv", "stats-mean", "stats-median"]);
    assert.match(String(await page.locator(".card-status").textContent()), /completed 12/);
    await screenshot(page, "dashboard");
    await page.click("th[data-key='reward']");
    await page.click("th[data-key='reward']");
    // The server sorts: the rows are drawn once its page is back.
    await page.waitForSelector("th[data-key='reward']:has-text('▼')");
    await page.waitForSelector("table.rollout-table[aria-busy=false]");
    const rewards = (await page.locator("table.rollout-table tbody tr td:nth-child(6)").allTextContents()).map(Number);
    assert.deepEqual(
      rewards,
      [...rewards].sort((a, b) => b - a),
      "sorted by reward, descending",
    );
    await page.fill(".rollouts input[type=search]", "stats-median");
    await page.locator(".rollouts .toolbar .meta-item", { hasText: "4 of 12 rollouts" }).waitFor();
    assert.equal(await page.locator("table.rollout-table tbody tr").count(), 4);
    await page.locator("table.rollout-table tbody tr input[type=checkbox]").nth(0).check();
    await page.locator("table.rollout-table tbody tr input[type=checkbox]").nth(1).check();
    await page.click("text=Compare selected");
    await page.waitForSelector(".compare-table .cmp-line");
    assert.ok((await page.locator(".compare-table .cmp-line").count()) >= 7);
    // The picker lists the run's other 11 rollouts (the viewer asks for them with its own method and schemas).
    await page.click("input[data-slot='0']");
    await page.locator(".picker-status", { hasText: "11 rollouts" }).waitFor();
    await page.waitForSelector(".picker-option[data-value$='.jsonl'] >> nth=10");
    assert.match(String(await page.locator(".picker-option[data-value$='.jsonl']").first().textContent()), /· reward /);
    await screenshot(page, "compare");
    await page.press("input[data-slot='0']", "Escape");
    await page.goBack();
    await page.waitForSelector("table.rollout-table tbody tr");
    // The filter was restored from the snapshot; clear it.
    assert.equal(await page.inputValue(".rollouts input[type=search]"), "stats-median");
    await page.fill(".rollouts input[type=search]", "");
    await page.locator("table.rollout-table tbody tr", { hasText: "parse-csv-s1" }).click();
    await page.waitForSelector(".vrow[data-index='0']");
    assert.match(String(await page.locator("header.top h1").textContent()), /parse-csv · sample 1/);
    assert.deepEqual(errors, []);
  });

  test("state survives a reload (snapshot restore)", async () => {
    const { page } = await open(path.join(runs.code, "rollouts", "stats-median-s1.jsonl"));
    await page.waitForSelector(".vrow[data-index='2']");
    await page.click(".vrow[data-index='2']");
    await page.click("button[data-tab='reward']");
    await page.waitForSelector(".reward-table");
    await page.reload();
    await page.waitForSelector(".reward-table");
    assert.equal(await page.locator("nav.tabs button.active").getAttribute("data-tab"), "reward");
    await page.click("button[data-tab='steps']");
    await page.waitForSelector(".vrow.selected[data-index='2']");
  });

  test("XSS trajectory: every model string rendered as text, no script runs", async () => {
    const { page, errors } = await open(path.join(runs.xss, "rollouts", "xss.jsonl"));
    await page.waitForSelector(".vrow[data-index='1']");
    for (let i = 0; i < 5; i++) {
      const row = page.locator(`.vrow[data-index='${i}']`);
      if ((await row.count()) === 0) break;
      await row.click();
      await page.waitForSelector(`.detail .step[data-row='${i}']`);
    }
    await page.click(".vrow[data-index='1']");
    await page.waitForSelector(".detail .step[data-row='1']");
    const detail = String(await page.locator(".detail").textContent());
    assert.match(detail, /<img src=x onerror=/, "the payload is visible as text");
    for (const tab of ["reward", "code", "compare", "steps"]) {
      const b = page.locator(`button[data-tab='${tab}']`);
      if (await b.count()) {
        await b.click();
        await page.waitForTimeout(tab === "code" ? 1500 : 300);
      }
    }
    const state = await page.evaluate(`({
      xss: window.__xss ?? null,
      title: document.title,
      injected: document.querySelectorAll("#app img[onerror], #app svg[onload], #app iframe, #app script, #app [onmouseover]").length,
      jsLinks: [...document.querySelectorAll("a")].filter((a) => a.href.trim().toLowerCase().startsWith("javascript:")).length,
    })`);
    assert.deepEqual(state, { xss: null, title: "RL Env Studio: trajectory", injected: 0, jsLinks: 0 });
    await screenshot(page, "xss");
    assert.deepEqual(
      errors.filter((e) => !/Content Security Policy/.test(e)),
      [],
    );
  });
});

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { missing } from "../support/services";
import { writeTokenRollout } from "../support/token-rollout";
import { launch, rlenvView, screenshot, watchErrors } from "./support/browser";

/**
 * The Steps panel's token toggle in Chromium through `rlenv view`: a captured turn's tokens with
 * their logprob colours and the mask, a long turn a page at a time, tokens a drifting turn rewrote,
 * a turn whose server returned none.
 */
test("steps: the Tokens toggle shows a turn's tokens coloured by logprob, sampled vs not, and pages a long turn", {
  skip: missing("chromium"),
}, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tokens-e2e-"));
  const plan = writeTokenRollout(dir, 4500);
  const view = await rlenvView(plan.file);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.locator(".top .badge", { hasText: "completed" }).waitFor();
    assert.equal(await page.locator(".top .badge.warn").count(), 0, "every line of the fixture is a valid event");
    // Row 0 is the prompt; row 1 the first turn.
    await page.waitForSelector(".vrow[data-index='1']");
    await page.click(".vrow[data-index='1']");
    await page.waitForSelector(".detail .step[data-row='1']");
    const toggle = page.locator(".detail .event.role-assistant .tokens-toggle");
    assert.equal(await toggle.count(), 1);
    assert.equal(await toggle.getAttribute("aria-pressed"), "false");
    await toggle.click();
    await page.locator(".tokens-body .tok").first().waitFor();
    // 12 prompt tokens (not sampled) then 6 sampled, shown as ids (the trajectory has no text pieces).
    assert.equal(await page.locator(".tokens-body .tok.prompt").count(), 12);
    assert.equal(await page.locator(".tokens-body .tok.sampled").count(), 6);
    assert.deepEqual(await page.locator(".tokens-view .tokens-body .tok.sampled").allTextContents(), ["10", "11", "12", "13", "14", "15"]);
    // Colour by logprob: the certain token is green, the exp(-6) one red.
    const certain = await page.locator(".tokens-body .tok.sampled[data-id='10']").getAttribute("style");
    const unlikely = await page.locator(".tokens-body .tok.sampled[data-id='14']").getAttribute("style");
    const rgb = (style: string | null) => (/rgb\((\d+), (\d+), (\d+)\)/.exec(String(style)) ?? []).slice(1).map(Number);
    const [cr = 0, cg = 0] = rgb(certain);
    const [ur = 0, ug = 0] = rgb(unlikely);
    assert.ok(cg > 2 * cr, `the certain token is green: ${certain}`);
    assert.ok(ur > 2 * ug, `the unlikely token is red: ${unlikely}`);
    assert.match(String(await page.locator(".tokens-body .tok.sampled[data-id='13']").getAttribute("title")), /logprob -2\.3000/);
    assert.match(String(await page.locator(".tokens-summary").textContent()), /12 prompt \+ 6 sampled tokens/);
    await screenshot(page, "steps-token-toggle");

    // The toggle holds across steps: the long turn shows its first page and a "show more".
    await page.click(".vrow[data-index='2']");
    await page.waitForSelector(".detail .step[data-row='2']");
    await page.locator(".tokens-view[data-shown='2000']").waitFor();
    assert.equal(await page.locator(".tokens-body .tok").count(), 2000);
    assert.match(String(await page.locator(".tokens-more-btn").textContent()), /show 2,000 more \(2,503 left\)/);
    await page.click(".tokens-more-btn");
    await page.locator(".tokens-view[data-shown='4000']").waitFor();
    await page.click(".tokens-more-btn");
    await page.locator(".tokens-view[data-shown='4503']").waitFor();
    assert.equal(await page.locator(".tokens-more-btn").count(), 0);
    // The third turn's prompt rewrote this one from its drift position: those sampled tokens left the mask.
    const rewritten = await page.locator(".tokens-body .tok.rewritten").count();
    assert.equal(rewritten, 18 + 3 + 4500 - plan.driftAt);
    assert.match(String(await page.locator(".tokens-summary").textContent()), new RegExp(`rewritten from ${plan.driftAt}`));
    await page.locator(".tokens-body .tok.rewritten").first().scrollIntoViewIfNeeded();
    await screenshot(page, "steps-token-toggle-long");

    // A turn on a server without capture says so.
    await page.click(".vrow[data-index='4']");
    await page.waitForSelector(".detail .step[data-row='4']");
    assert.match(String(await page.locator(".detail .tokens-toggle").textContent()), /not captured/);
    assert.deepEqual(errors, [], errors.join("\n"));
  } finally {
    await browser.close();
    view.stop();
  }
});

test("steps: a run whose tokenizer folder is here shows the tokens' text pieces", { skip: missing("chromium") }, async () => {
  const { writeFileSync } = await import("node:fs");
  const { QWEN3_DIR, qwenDecode } = await import("../support/qwen-tokens");
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-tokens-text-e2e-"));
  const plan = writeTokenRollout(dir, 120);
  writeFileSync(
    path.join(dir, "run.json"),
    JSON.stringify({
      id: "tok",
      created: "2026-01-01T00:00:00Z",
      status: "completed",
      env: { name: "tok-env", hash: "h", domain: "custom", path: "/e" },
      config: { policy: { kind: "openai", model: "qwen3", tokens: true, tokenizer: QWEN3_DIR }, k: 1 },
    }),
  );
  const view = await rlenvView(plan.file);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    const errors = watchErrors(page);
    await page.goto(view.url);
    await page.waitForSelector(".vrow[data-index='2']");
    await page.click(".vrow[data-index='2']");
    await page.waitForSelector(".detail .step[data-row='2']");
    await page.click(".detail .tokens-toggle");
    await page.locator(".tokens-body .tok").first().waitFor();
    assert.equal(await page.locator(".tokens-body .tok.id").count(), 0, "text pieces, not ids");
    const first = plan.turns[1]!.completion.slice(0, 5);
    const shown = await page.locator(".tokens-body .tok.sampled").allTextContents();
    assert.deepEqual(
      shown.slice(0, 5),
      first.map((id) => qwenDecode([id])),
    );
    await screenshot(page, "steps-token-toggle-text");
    assert.deepEqual(errors, [], errors.join("\n"));
  } finally {
    await browser.close();
    view.stop();
  }
});

import type { Page } from "playwright-core";

/**
 * Waits for the page's first-paint mark without Playwright's selector engine: waitForSelector
 * evaluates Playwright's injected script (~16 ms of the renderer's CPU, 75-130 ms at load 10)
 * in the page as soon as it is called, which then ran between the step drawn and its paint and
 * was counted in the figure. Runtime.evaluate of a few lines polls in the page instead.
 */
export async function waitForPaint(page: Page, timeoutMs: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const r = await cdp.send("Runtime.evaluate", {
      expression: `new Promise((resolve) => {
        const end = Date.now() + ${timeoutMs};
        const check = () => (document.body && document.body.dataset.firstPaintMs ? resolve(true) : Date.now() > end ? resolve(false) : setTimeout(check, 20));
        check();
      })`,
      awaitPromise: true,
      returnByValue: true,
    });
    if (r.result.value !== true) throw new Error(`no first-paint mark in ${timeoutMs} ms`);
  } finally {
    await cdp.detach();
  }
}

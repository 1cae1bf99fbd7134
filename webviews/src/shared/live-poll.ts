import { h } from "./dom";

/** How often a live page asks again, how long it waits at most between tries after failures, and how many failures end it. */
export const LIVE_POLL = { everyMs: 1000, maxWaitMs: 16_000, giveUpAfter: 5 };

/**
 * Keeps a live page up to date: calls `tick` every second while `more()` says the rollout
 * or run is still going. When a call fails (the server stopped, the panel's host is gone)
 * a banner says so and the waits double (2 s, 4 s … 16 s); after `giveUpAfter` failures in
 * a row polling stops and the banner says the page no longer updates. A success removes
 * the banner and goes back to the normal pace. Returns a function that stops it.
 */
export function pollWhileLive(tick: () => Promise<void>, more: () => boolean, opts = LIVE_POLL): () => void {
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let banner: HTMLElement | null = null;
  const say = (text: string) => {
    banner ??= document.body.insertBefore(h("div", { class: "error-banner live-banner", role: "alert" }), document.body.firstChild);
    banner.textContent = text;
  };
  const next = (ms: number) => {
    if (!stopped) timer = setTimeout(run, ms);
  };
  const run = () => {
    void tick().then(
      () => {
        failures = 0;
        banner?.remove();
        banner = null;
        if (more()) next(opts.everyMs);
      },
      (err: unknown) => {
        failures++;
        const why = err instanceof Error ? err.message : String(err);
        if (failures >= opts.giveUpAfter) {
          say(`The server stopped: this page no longer updates (${why}). Open the rollout again (rlenv view) to follow it.`);
          return;
        }
        const wait = Math.min(opts.maxWaitMs, opts.everyMs * 2 ** failures);
        say(`The server stopped answering (${why}); trying again in ${Math.round(wait / 1000)} s.`);
        next(wait);
      },
    );
  };
  next(opts.everyMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

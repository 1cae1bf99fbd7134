import "./tokens.css";
import type { HostApi } from "../../shared/api";
import { clear, fmtCount, fmtNum, h } from "../../shared/dom";
import { TOKEN_PAGE, type TurnTokenWindow } from "../../../../src/core/view/protocol/tokens";

/**
 * The colour of a sampled token by its logprob: the probability exp(logprob) on a red (unlikely)
 * to green (certain) hue, so the eye finds the tokens the policy was unsure of.
 */
export function logprobColour(lp: number): string {
  const p = Math.exp(Math.max(-20, Math.min(0, lp)));
  return `hsl(${Math.round(120 * p)} 65% 32%)`;
}

function tokenSpan(w: TurnTokenWindow, k: number): HTMLElement {
  const i = w.from + k;
  const id = w.ids[k]!;
  const lp = w.logprobs[k] ?? null;
  const pos = w.offset + i;
  const sampled = i >= w.prompt;
  const rewritten = sampled && w.rewritten_from !== null && pos >= w.rewritten_from;
  const text = w.text?.[k] ?? null;
  const kind = !sampled ? "prompt" : rewritten ? "rewritten" : "sampled";
  const title = [
    `position ${pos}`,
    `id ${id}`,
    lp !== null ? `logprob ${lp.toFixed(4)} (p ${Math.exp(lp).toFixed(3)})` : sampled && w.has_logprobs ? "logprob -inf" : null,
    !sampled
      ? "not sampled: prompt, observation or template glue"
      : rewritten
        ? "sampled, then rewritten by a later turn: out of the loss mask"
        : "sampled: in the loss mask",
  ]
    .filter((x) => x !== null)
    .join(" · ");
  const span = h("span", { class: `tok ${kind}${text === null ? " id" : ""}`, title, "data-id": id, "data-pos": pos }, text ?? String(id));
  if (lp !== null) span.dataset.logprob = String(lp);
  if (sampled && lp !== null) span.style.backgroundColor = logprobColour(lp);
  return span;
}

function legend(): HTMLElement {
  const swatch = (cls: string, label: string, colour?: string) => {
    const s = h("span", { class: `tok ${cls}` }, label);
    if (colour) s.style.backgroundColor = colour;
    return s;
  };
  return h(
    "div",
    { class: "tokens-legend meta-item" },
    "sampled, by probability: ",
    swatch("sampled", "p 0.05", logprobColour(Math.log(0.05))),
    swatch("sampled", "p 0.5", logprobColour(Math.log(0.5))),
    swatch("sampled", "p 1", logprobColour(0)),
    " · ",
    swatch("prompt", "not sampled"),
    " · ",
    swatch("rewritten", "rewritten by a later turn"),
  );
}

function summary(w: TurnTokenWindow): HTMLElement {
  const s = w.logprob_stats;
  const parts = [
    `${fmtCount(w.prompt)} prompt + ${fmtCount(w.completion)} sampled tokens`,
    `positions ${fmtCount(w.offset)}–${fmtCount(w.offset + w.prompt + w.completion)}`,
    w.capture === "engine" ? "token-in/token-out" : "server capture",
    w.model ? `model ${w.model}` : null,
    w.finish_reason ? `finish ${w.finish_reason}` : null,
    s ? `logprob mean ${fmtNum(s.mean, 3)}, min ${fmtNum(s.min, 3)}` : w.completion ? "no logprobs" : null,
  ].filter((x): x is string => x !== null);
  return h(
    "div",
    { class: "tokens-summary" },
    parts.join(" · "),
    w.drift_at !== null ? h("span", { class: "badge warn" }, `drift at ${w.drift_at}`) : null,
    w.rewritten_from !== null ? h("span", { class: "badge warn" }, `rewritten from ${w.rewritten_from}`) : null,
  );
}

/**
 * A captured turn's tokens under its message: a page of tokens at a time ("show more" asks the host
 * for the next), each a span coloured by its logprob, sampled and not sampled told apart.
 */
export class TurnTokensView {
  readonly el = h("div", { class: "tokens-view" });
  private readonly body = h("div", { class: "tokens-body" });
  private readonly more = h("div", { class: "tokens-more" });
  private shown = 0;

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
    private readonly row: number,
    private readonly line: number,
  ) {}

  async load(): Promise<void> {
    clear(this.el);
    this.el.appendChild(h("div", { class: "meta-item" }, "loading tokens…"));
    const [w] = await this.api.request("tokens", { file: this.file, row: this.row, line: this.line, from: 0, limit: TOKEN_PAGE });
    clear(this.el);
    if (!w) return void this.el.appendChild(h("div", { class: "empty" }, "This turn has no tokens."));
    if (w.capture === "absent")
      return void this.el.appendChild(h("div", { class: "empty" }, "The server returned no tokens for this turn (capture absent)."));
    this.el.append(summary(w), legend(), this.body, this.more);
    this.add(w);
  }

  private add(w: TurnTokenWindow): void {
    const frag = document.createDocumentFragment();
    for (let k = 0; k < w.ids.length; k++) frag.appendChild(tokenSpan(w, k));
    this.body.appendChild(frag);
    this.shown = w.from + w.ids.length;
    const total = w.prompt + w.completion;
    clear(this.more);
    if (this.shown < total)
      this.more.appendChild(
        h(
          "button",
          {
            class: "tokens-more-btn",
            onclick: () => void this.next(),
          },
          `show ${fmtCount(Math.min(TOKEN_PAGE, total - this.shown))} more (${fmtCount(total - this.shown)} left)`,
        ),
      );
    this.el.dataset.shown = String(this.shown);
  }

  private async next(): Promise<void> {
    const [w] = await this.api.request("tokens", { file: this.file, row: this.row, line: this.line, from: this.shown, limit: TOKEN_PAGE });
    if (w) this.add(w);
  }
}

/**
 * The Steps panel's token toggle: a "Tokens" button on each assistant message that carries a
 * tokens field. The choice holds across steps, so stepping through a rollout keeps tokens shown.
 */
export class TokenToggle {
  private on = false;

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {}

  /** Adds the button to every captured message card of a drawn step (and its tokens when on). */
  attach(step: HTMLElement, row: number): void {
    for (const card of step.querySelectorAll<HTMLElement>("[data-tokens-line]")) {
      const line = Number(card.dataset.tokensLine);
      const absent = card.dataset.capture === "absent";
      const head = card.querySelector(".ev-head");
      const view = new TurnTokensView(this.api, this.file, row, line);
      const btn = h(
        "button",
        {
          class: "tokens-toggle",
          "aria-pressed": this.on ? "true" : "false",
          title: absent ? "The server returned no tokens for this turn" : "Show the turn's tokens with their logprobs and loss mask",
        },
        absent ? "tokens: not captured" : "Tokens",
      );
      const show = (on: boolean) => {
        btn.setAttribute("aria-pressed", on ? "true" : "false");
        if (on) {
          card.appendChild(view.el);
          view.load().catch((err: unknown) => {
            clear(view.el);
            view.el.appendChild(h("div", { class: "error-banner" }, String(err)));
          });
        } else view.el.remove();
      };
      btn.addEventListener("click", () => {
        this.on = btn.getAttribute("aria-pressed") !== "true";
        show(this.on);
      });
      head?.appendChild(btn);
      if (this.on && !absent) show(true);
    }
  }
}

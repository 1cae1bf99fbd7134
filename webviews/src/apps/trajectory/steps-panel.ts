import type { HostApi } from "../../shared/api";
import { clear, fmtCount, fmtMs, h } from "../../shared/dom";
import { VirtualList } from "../../shared/virtual-list";
import { ROW_PAGE, type RowSummary } from "./protocol";
import { renderStep } from "./step-render";
import { TokenToggle } from "./tokens-view";

const ROW_HEIGHT = 48;
const PAGE = ROW_PAGE;

function rowView(r: RowSummary | undefined, i: number, selected: boolean): HTMLElement {
  if (!r)
    return h(
      "div",
      { class: `row${selected ? " selected" : ""}` },
      h("div", { class: "r1" }, h("span", { class: "title" }, `#${i}`)),
      h("div", { class: "r2" }, "…"),
    );
  const flags = [
    r.has.diff ? "diff" : null,
    r.has.scene ? "3d" : null,
    r.has.citations ? "cite" : null,
    r.has.images ? "img" : null,
  ].filter((x): x is string => x !== null);
  const bad = r.status !== null && r.status !== "ok" && r.status !== "completed";
  return h(
    "div",
    { class: `row kind-${r.kind}${selected ? " selected" : ""}`, role: "option" },
    h(
      "div",
      { class: "r1" },
      h("span", { class: "title" }, r.title),
      r.status ? h("span", { class: `badge ${bad ? "bad" : "ok"}` }, r.status) : null,
      h("span", { class: "tools" }, r.tools.join(", ")),
      ...flags.map((f) => h("span", { class: "icon" }, f)),
      r.latency_ms !== null ? h("span", { class: "meta-item" }, fmtMs(r.latency_ms)) : null,
    ),
    h("div", { class: "r2" }, r.preview),
  );
}

/** The timeline (virtualised) and the selected step's full detail. */
export class StepsPanel {
  readonly el: HTMLElement;
  readonly list: VirtualList<RowSummary>;
  private readonly detail = h("div", { class: "detail", "aria-live": "polite" });
  private readonly count = h("div", { class: "count" });
  private requestSeq = 0;
  /** The step on screen and the window of its events shown (null before the first is drawn). */
  private drawn: { row: number; from: number } | null = null;
  private readonly tokens: TokenToggle;
  /** Called after a step is drawn (the benchmark and the live panel listen). */
  onDrawn: (row: number) => void = () => {};
  onSelect: (row: number) => void = () => {};

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {
    this.list = new VirtualList<RowSummary>(
      ROW_HEIGHT,
      PAGE,
      (from, to) => api.request("rows", { file, from, to }),
      rowView,
      (i) => this.show(i),
    );
    this.tokens = new TokenToggle(api, file);
    this.el = h("div", { class: "split steps" }, h("div", { class: "timeline" }, this.count, this.list.el), this.detail);
  }

  setCount(rows: number, complete: boolean, indexing: boolean): void {
    this.list.setCount(rows);
    this.count.textContent = `${fmtCount(rows)} steps${indexing ? " · reading the file…" : complete ? "" : " · live"}`;
  }

  /**
   * The file gained lines (`lines` went up) while it had `oldRows` rows: the last of those
   * may have grown (the prompt row of a file whose large second line was read after the
   * first step was drawn, a live turn gaining its observation), so it and every row after
   * it are fetched again, and the step on screen is drawn again when it is among them.
   */
  linesGrew(oldRows: number): void {
    const from = Math.max(0, oldRows - 1);
    this.list.invalidateFrom(from);
    if (this.drawn && this.drawn.row >= from) void this.show(this.drawn.row, this.drawn.from, true);
  }

  private async show(row: number, from = 0, again = false): Promise<void> {
    const seq = ++this.requestSeq;
    if (from === 0) this.onSelect(row);
    try {
      const step = await this.api.request("step", { file: this.file, row, from });
      if (seq !== this.requestSeq) return;
      // Drawn again in place (the step grew): the reader keeps the scroll position.
      const scroll = again ? this.detail.scrollTop : 0;
      clear(this.detail);
      const drawn = renderStep(step, (next) => void this.show(row, next));
      this.tokens.attach(drawn, row);
      this.detail.appendChild(drawn);
      this.detail.scrollTop = scroll;
      this.drawn = { row, from };
      this.onDrawn(row);
    } catch (err) {
      clear(this.detail);
      this.detail.appendChild(h("div", { class: "error-banner" }, String(err)));
    }
  }
}

import "./virtual-table.css";
import { h } from "../../shared/dom";

/** Rows drawn above and below the visible ones, so a short scroll shows drawn rows at once. */
const OVERSCAN = 10;
/** Before the first row is measured: the height a one-line row of the dashboard's tables has. */
const DEFAULT_ROW_PX = 29;

/**
 * A table whose body holds only the rows in view (plus a margin): a run of 10,000 rollouts keeps
 * a screenful of rows in the DOM, and redrawing it after a filter or a sort costs the same as for
 * ten. Rows are one line high (cells do not wrap), measured from the first row drawn; the header
 * stays at the top of the scrolling box. The rows are indexes into whatever list the owner keeps.
 */
export class VirtualTable {
  readonly el: HTMLElement;
  readonly table: HTMLTableElement;
  readonly tbody = h("tbody");
  private readonly above = h("div", { class: "vt-pad" });
  private readonly below = h("div", { class: "vt-pad" });
  private count = 0;
  private rowPx = 0;
  private frame = 0;
  /** The rows in the DOM by index, [first, last). */
  private drawn = new Map<number, HTMLElement>();
  private first = 0;
  private last = 0;
  private head: number | undefined;

  constructor(
    className: string,
    readonly thead: HTMLElement,
    private readonly renderRow: (index: number) => HTMLElement,
    /** The box's most height, as CSS (rows beyond scroll). */
    maxHeight = "70vh",
  ) {
    this.table = h("table", { class: `grid vt ${className}` }, thead, this.tbody);
    this.el = h("div", { class: "vt-scroll" }, this.above, this.table, this.below);
    this.el.style.maxHeight = maxHeight;
    this.el.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.el);
  }

  /** A new row count (after a filter or sort): redraws now, from the top when `toTop`. */
  setCount(n: number, toTop = false): void {
    this.count = n;
    if (toTop) this.el.scrollTop = 0;
    this.render();
  }

  /** The index of the first row in view (the top of the box). */
  firstInView(): number {
    const top = Math.max(0, this.el.scrollTop - this.headPx());
    return Math.min(Math.max(0, this.count - 1), Math.floor(top / (this.rowPx || DEFAULT_ROW_PX)));
  }

  /** Redraws the rows in view now (their content may have changed). */
  render(): void {
    this.draw(true);
  }

  /**
   * Draws rows [first, last) of the box's view and its margins. `fresh`: every row is made anew (the
   * content changed); otherwise (a scroll, a resize, the row height measured) the rows already drawn
   * are kept and only those that came into view are made, so the frame after a scroll or after the
   * box is first laid out costs the new rows, not a screenful.
   */
  private draw(fresh: boolean): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const rowPx = this.rowPx || DEFAULT_ROW_PX;
    const view = this.el.clientHeight || 600;
    const top = Math.max(0, this.el.scrollTop - this.headPx());
    const first = Math.max(0, Math.min(this.count, Math.floor(top / rowPx) - OVERSCAN));
    const last = Math.min(this.count, Math.ceil((top + view) / rowPx) + OVERSCAN);
    if (fresh || first !== this.first || last !== this.last) {
      const drawn = new Map<number, HTMLElement>();
      for (let i = first; i < last; i++) drawn.set(i, (!fresh && this.drawn.get(i)) || this.renderRow(i));
      this.drawn = drawn;
      this.first = first;
      this.last = last;
      this.tbody.replaceChildren(...drawn.values());
    }
    this.above.style.height = `${first * rowPx}px`;
    this.below.style.height = `${(this.count - last) * rowPx}px`;
    // The first row drawn in the page gives the height of all (one line each), measured once: each
    // measure is a layout of the page. Redrawn (keeping its rows) when the guess was off.
    if (this.rowPx || !this.el.isConnected) return;
    const measured = this.drawn.get(first)?.getBoundingClientRect().height ?? 0;
    if (measured <= 0) return;
    this.rowPx = measured;
    this.head = this.thead.getBoundingClientRect().height;
    if (Math.abs(measured - DEFAULT_ROW_PX) > 0.5) this.schedule();
  }

  /** The header's height (measured with the first row; until then, one row's). */
  private headPx(): number {
    return this.head ?? DEFAULT_ROW_PX;
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw(false));
  }
}

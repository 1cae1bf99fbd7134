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
    const top = Math.max(0, this.el.scrollTop - this.thead.getBoundingClientRect().height);
    return Math.min(Math.max(0, this.count - 1), Math.floor(top / (this.rowPx || DEFAULT_ROW_PX)));
  }

  /** Redraws the rows in view now (their content may have changed). */
  render(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const rowPx = this.rowPx || DEFAULT_ROW_PX;
    const head = this.thead.getBoundingClientRect().height;
    const view = this.el.clientHeight || 600;
    const top = Math.max(0, this.el.scrollTop - head);
    const first = Math.max(0, Math.min(this.count, Math.floor(top / rowPx) - OVERSCAN));
    const last = Math.min(this.count, Math.ceil((top + view) / rowPx) + OVERSCAN);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) rows.push(this.renderRow(i));
    this.tbody.replaceChildren(...rows);
    this.above.style.height = `${first * rowPx}px`;
    this.below.style.height = `${(this.count - last) * rowPx}px`;
    // The first row drawn gives the height of all (one line each); redraw once if the guess was off.
    const measured = rows[0]?.getBoundingClientRect().height ?? 0;
    if (measured > 0 && Math.abs(measured - rowPx) > 0.5) {
      this.rowPx = measured;
      this.schedule();
    } else if (measured > 0) this.rowPx = measured;
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }
}

import "./virtual-table.css";
import { h } from "../../shared/dom";
import { type FramePart, nextFrame } from "../../shared/frame";

/** Rows drawn above and below the visible ones, so a short scroll shows drawn rows at once. */
const OVERSCAN = 10;
/** Before the first row is measured: the height a one-line row of the dashboard's tables has. */
const DEFAULT_ROW_PX = 29;

/**
 * A table whose body holds only the rows in view (plus a margin): a run of 10,000 rollouts keeps
 * a screenful of rows in the DOM, and redrawing it after a filter or a sort costs the same as for
 * ten. Rows are one line high (cells do not wrap), measured from the first row drawn; the header
 * stays at the top of the scrolling box. The rows are indexes into whatever list the owner keeps.
 * It draws in frames (shared/frame.ts): every table of the page reads its box before any draws rows,
 * so a frame lays the page out once, however many tables it redraws.
 */
export class VirtualTable implements FramePart {
  readonly el: HTMLElement;
  readonly table: HTMLTableElement;
  readonly tbody = h("tbody");
  private readonly above = h("div", { class: "vt-pad" });
  private readonly below = h("div", { class: "vt-pad" });
  private count = 0;
  private rowPx = 0;
  /** The box's height and scroll offset as the last frame read them (0 until a frame has). */
  private viewPx = 0;
  private scrollPx = 0;
  /** The next draw makes every row anew (the content changed), not only those that came into view. */
  private fresh = false;
  /** The next frame scrolls the box back to its top (a new filter or sort). */
  private toTop = false;
  /** Rows made ahead by render() for the next frame's fresh draw, by index. */
  private made = new Map<number, HTMLElement>();
  /** The rows in the DOM by index, [first, last). */
  private drawn = new Map<number, HTMLElement>();
  private first = 0;
  private last = 0;
  private head: number | undefined;
  /** setCount's callers, told when their rows are drawn. */
  private waiting: Array<() => void> = [];

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
    this.el.addEventListener("scroll", () => nextFrame(this));
    new ResizeObserver(() => nextFrame(this)).observe(this.el);
  }

  /**
   * A new row count (after a filter or sort): redrawn in the next frame, from the top when `toTop`.
   * Resolves once that frame has drawn the rows.
   */
  setCount(n: number, toTop = false): Promise<void> {
    this.count = n;
    if (toTop) this.toTop = true;
    this.render();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The index of the first row in view (the top of the box), as the last frame saw it: asking reads no layout. */
  firstInView(): number {
    const top = Math.max(0, this.scrollPx - this.headPx());
    return Math.min(Math.max(0, this.count - 1), Math.floor(top / (this.rowPx || DEFAULT_ROW_PX)));
  }

  /** Redraws the rows in view in the next frame, every one made anew (their content changed). */
  render(): void {
    this.fresh = true;
    // The rows the frame will most likely show (the box as last read) are made now, in the task that
    // changed them: the frame's task then only puts them in place before its layout and paint.
    const [first, last] = this.range(this.toTop ? 0 : this.scrollPx);
    this.made = new Map();
    for (let i = first; i < last; i++) this.made.set(i, this.renderRow(i));
    nextFrame(this);
  }

  /** The rows [first, last) to draw with the box scrolled to `scrollPx`: those in view and the margins. */
  private range(scrollPx: number): [number, number] {
    const rowPx = this.rowPx || DEFAULT_ROW_PX;
    // Before the box is laid out (not in the page yet), a screenful.
    const view = this.viewPx || 600;
    const top = Math.max(0, scrollPx - this.headPx());
    const first = Math.max(0, Math.min(this.count, Math.floor(top / rowPx) - OVERSCAN));
    return [first, Math.min(this.count, Math.ceil((top + view) / rowPx) + OVERSCAN)];
  }

  /**
   * The frame's read: the box's height and scroll offset, and once, the height of a row drawn by an
   * earlier frame (laid out since, so measuring it costs no layout of its own).
   */
  read(): void {
    if (!this.el.isConnected) return;
    // A scroll offset changes no layout: set here, it leaves the other parts' reads a clean layout.
    if (this.toTop && this.el.scrollTop > 0) this.el.scrollTop = 0;
    this.toTop = false;
    this.viewPx = this.el.clientHeight;
    this.scrollPx = this.el.scrollTop;
    if (this.rowPx) return;
    const measured = this.drawn.get(this.first)?.getBoundingClientRect().height ?? 0;
    if (measured <= 0) return;
    this.rowPx = measured;
    this.head = this.thead.getBoundingClientRect().height;
  }

  /**
   * The frame's write: rows [first, last) of the box's view and its margins. Fresh: every row is made
   * anew (most of them by render() already); otherwise (a scroll, a resize, the row height measured) the rows already drawn are kept and
   * only those that came into view are made, so the frame after a scroll or after the box is first
   * laid out costs the new rows, not a screenful.
   */
  write(): void {
    const fresh = this.fresh;
    this.fresh = false;
    const rowPx = this.rowPx || DEFAULT_ROW_PX;
    const [first, last] = this.range(this.scrollPx);
    const changed = fresh || first !== this.first || last !== this.last;
    if (changed) {
      const drawn = new Map<number, HTMLElement>();
      const have = fresh ? this.made : this.drawn;
      for (let i = first; i < last; i++) drawn.set(i, have.get(i) ?? this.renderRow(i));
      this.made = new Map();
      this.drawn = drawn;
      this.first = first;
      this.last = last;
      this.tbody.replaceChildren(...drawn.values());
    }
    this.above.style.height = `${first * rowPx}px`;
    this.below.style.height = `${(this.count - last) * rowPx}px`;
    if (fresh) for (const done of this.waiting.splice(0)) done();
    // The rows' height (one line each) is measured once, in the next frame's read, from a row drawn now
    // (asked for only when rows were drawn: a hidden box, which measures 0, does not draw every frame).
    if (changed && !this.rowPx && this.drawn.size && this.el.isConnected) nextFrame(this);
  }

  /** The header's height (measured with the first row; until then, one row's). */
  private headPx(): number {
    return this.head ?? DEFAULT_ROW_PX;
  }
}

import { clear, h } from "./dom";
import { type FramePart, nextFrame, skipFrame } from "./frame";

/**
 * A list of fixed-height rows that only keeps the visible ones (plus a margin) in the
 * DOM, so 10,000 steps scroll as smoothly as 10. Rows are fetched in pages through
 * `load` and cached; a row not loaded yet shows a placeholder until its page arrives.
 * A scroll or a page that arrived redraws in the next frame (shared/frame.ts), reading the box
 * with the page's other lists and tables before any of them writes.
 */
export class VirtualList<T> implements FramePart {
  readonly el: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly cache = new Map<number, T>();
  private readonly loading = new Set<number>();
  /**
   * Cached rows to fetch again (the last page of a list that grew: its last row may have grown too),
   * by the mark of the setCount that made them stale. They stay shown until their page is back, so
   * a live list never flickers to placeholders.
   */
  private readonly stale = new Map<number, number>();
  private marks = 0;
  private count = 0;
  private selected = -1;
  /** The box's height and scroll offset as the frame's read found them. */
  private viewPx = 0;
  private scrollPx = 0;

  constructor(
    private readonly rowHeight: number,
    private readonly pageSize: number,
    private readonly load: (from: number, to: number) => Promise<T[]>,
    private readonly renderRow: (item: T | undefined, index: number, selected: boolean) => HTMLElement,
    private readonly onSelect: (index: number) => void,
  ) {
    this.spacer = h("div", { class: "vlist-spacer" });
    this.el = h("div", { class: "vlist", tabindex: 0, role: "listbox" }, this.spacer);
    this.el.addEventListener("scroll", () => this.schedule());
    this.el.addEventListener("keydown", (e) => {
      const step =
        e.key === "ArrowDown" || e.key === "j"
          ? 1
          : e.key === "ArrowUp" || e.key === "k"
            ? -1
            : e.key === "PageDown"
              ? 20
              : e.key === "PageUp"
                ? -20
                : 0;
      if (!step) return;
      e.preventDefault();
      this.select(Math.max(0, Math.min(this.count - 1, this.selected + step)), true);
    });
    new ResizeObserver(() => this.schedule()).observe(this.el);
  }

  setCount(n: number): void {
    if (n === this.count) return;
    // The last page may have been partial (a live file): it is fetched again, its rows shown meanwhile.
    const lastPage = Math.floor(this.count / this.pageSize);
    const mark = ++this.marks;
    for (let i = lastPage * this.pageSize; i < this.count; i++) if (this.cache.has(i)) this.stale.set(i, mark);
    this.count = n;
    this.spacer.style.height = `${n * this.rowHeight}px`;
    this.schedule();
  }

  /** Drops the cached rows from `index` on (their lines grew: a step still being read or written) and draws again. */
  invalidateFrom(index: number): void {
    for (const i of [...this.cache.keys()])
      if (i >= index) {
        this.cache.delete(i);
        this.stale.delete(i);
      }
    this.schedule();
  }

  get length(): number {
    return this.count;
  }

  get selectedIndex(): number {
    return this.selected;
  }

  select(index: number, reveal: boolean): void {
    if (index < 0 || index >= this.count) return;
    this.selected = index;
    if (reveal) this.reveal(index);
    this.schedule();
    this.onSelect(index);
  }

  reveal(index: number): void {
    const top = index * this.rowHeight;
    if (top < this.el.scrollTop) this.el.scrollTop = top;
    else if (top + this.rowHeight > this.el.scrollTop + this.el.clientHeight)
      this.el.scrollTop = top + this.rowHeight - this.el.clientHeight;
  }

  item(index: number): T | undefined {
    return this.cache.get(index);
  }

  /** Draws now (tests and the first paint); scrolling and pages that arrive draw in the next frame. */
  render(): void {
    skipFrame(this);
    this.read();
    this.write();
  }

  read(): void {
    this.viewPx = this.el.clientHeight;
    this.scrollPx = this.el.scrollTop;
  }

  write(): void {
    const height = this.viewPx || 600;
    const first = Math.max(0, Math.floor(this.scrollPx / this.rowHeight) - 5);
    const last = Math.min(this.count, Math.ceil((this.scrollPx + height) / this.rowHeight) + 5);
    for (let p = Math.floor(first / this.pageSize); p * this.pageSize < last; p++) this.fetch(p);
    clear(this.spacer);
    for (let i = first; i < last; i++) {
      const row = this.renderRow(this.cache.get(i), i, i === this.selected);
      row.style.top = `${i * this.rowHeight}px`;
      row.style.height = `${this.rowHeight}px`;
      row.classList.add("vrow");
      row.dataset.index = String(i);
      row.addEventListener("click", () => this.select(i, false));
      this.spacer.appendChild(row);
    }
  }

  private schedule(): void {
    nextFrame(this);
  }

  private fetch(page: number): void {
    if (this.loading.has(page)) return;
    const from = page * this.pageSize;
    const to = Math.min(this.count, from + this.pageSize);
    if (from >= to) return;
    let complete = true;
    for (let i = from; i < to; i++) if (!this.cache.has(i) || this.stale.has(i)) complete = false;
    if (complete) return;
    this.loading.add(page);
    const mark = this.marks;
    this.load(from, to)
      .then((items) => {
        for (const [k, it] of items.entries()) {
          this.cache.set(from + k, it);
          // Fresh unless the list grew again while this page was on its way.
          if ((this.stale.get(from + k) ?? Infinity) <= mark) this.stale.delete(from + k);
        }
        this.schedule();
      })
      .catch((err: unknown) => console.error("rows", err))
      .finally(() => this.loading.delete(page));
  }
}

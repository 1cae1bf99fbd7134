import { clear, fmtMs, fmtNum, h } from "../../shared/dom";
import { parseMetaConditions } from "../../../../src/core/view/model/rollout-filter";
import type { RolloutKey as Key } from "../../../../src/core/view/model/rollout-order";
import type { RolloutPage, RolloutRow, RolloutWhere } from "./protocol";
import { MAX_COMPARE } from "../../../../src/core/view/protocol/trajectory";
import { visibleName } from "../../../../src/core/view/model/visible-text";
import { VirtualTable } from "./virtual-table";

/** Each column with its width (the table's layout is fixed, so widths do not jump as rows scroll by). */
const COLUMNS: Array<{ key: Key; label: string; num?: boolean; width: string }> = [
  { key: "id", label: "rollout", width: "30%" },
  { key: "task", label: "task", width: "20%" },
  { key: "sample", label: "sample", num: true, width: "7%" },
  { key: "status", label: "status", width: "11%" },
  { key: "reward", label: "reward", num: true, width: "8%" },
  { key: "turns", label: "turns", num: true, width: "6%" },
  { key: "duration_ms", label: "duration", num: true, width: "9%" },
  { key: "tokens", label: "tokens", num: true, width: "9%" },
];
/** Rows asked for at once: a screenful is about 30, so one page covers a scroll of several screens. */
const PAGE = 100;

/** A page of the table as the server sorts and filters it (the `rolloutPage` method). */
export type PageSource = (q: { sort: Key; desc: boolean; where: RolloutWhere; from: number; count: number }) => Promise<RolloutPage>;

export interface TableState {
  sort: Key;
  desc: boolean;
  filter: string;
  status: string;
  /** Range filters as typed (empty = open); metadata conditions as `key=value, key~text`. */
  rewardMin?: string;
  rewardMax?: string;
  durationMin?: string;
  durationMax?: string;
  tokensMin?: string;
  tokensMax?: string;
  meta?: string;
}

const RANGE_KEYS = ["rewardMin", "rewardMax", "durationMin", "durationMax", "tokensMin", "tokensMax"] as const;
const num = (s: string | undefined): number | null =>
  s === undefined || s.trim() === "" || !Number.isFinite(Number(s)) ? null : Number(s);

/** The filter the state describes, as the server takes it (empty parts left out). */
export function whereOf(s: TableState): RolloutWhere {
  const range = (lo: string | undefined, hi: string | undefined) => {
    const min = num(lo);
    const max = num(hi);
    return min === null && max === null ? undefined : { min, max };
  };
  const where: RolloutWhere = {};
  if (s.filter.trim()) where.text = s.filter;
  if (s.status) where.status = s.status;
  const reward = range(s.rewardMin, s.rewardMax);
  if (reward) where.reward = reward;
  const duration = range(s.durationMin, s.durationMax);
  if (duration) where.duration = duration;
  const tokens = range(s.tokensMin, s.tokensMax);
  if (tokens) where.tokens = tokens;
  if (s.meta?.trim()) where.meta = s.meta;
  return where;
}

/**
 * The rollouts of a run: sortable by any column, filtered by text, status, ranges and metadata; a
 * click opens the viewer. The rows live on the server's side, which sorts and filters all of them
 * (RolloutTable there); this table asks for the pages of the rows in view (VirtualTable draws only
 * those), so neither opening a run of 10,000 rollouts nor a filter costs the page more than a page.
 */
export class RolloutTable {
  readonly el: HTMLElement;
  private readonly filterInput = h("input", { type: "search", placeholder: "filter by rollout, task or status", "aria-label": "filter" });
  private readonly statusSelect = h("select", { "aria-label": "status" });
  private readonly compareBtn = h("button", { disabled: true, title: "Select two to four rollouts" }, "Compare selected");
  private readonly thead = h("thead");
  private readonly view: VirtualTable;
  /** The rows fetched for the current sort and filter, by page. */
  private pages = new Map<number, RolloutRow[]>();
  /** Pages asked for and not answered yet (of the current generation). */
  private readonly asked = new Set<number>();
  /** Bumped by each new sort, filter or refresh: replies to an older one are dropped. */
  private gen = 0;
  /** The server's build of the table the pages came from (a live run's is rebuilt as it grows). */
  private version = -1;
  private matched = 0;
  private readonly counter = h("span", { class: "meta-item" });
  private readonly metaInput = h("input", {
    type: "text",
    placeholder: "metadata: policy.model=…, task.id~…",
    "aria-label": "metadata filter",
    class: "meta-filter",
    list: "meta-keys",
  });
  private readonly metaError = h("span", { class: "fail meta-item" });
  private readonly metaKeys = h("datalist", { id: "meta-keys" });
  /** Called when the filter changes (the search is limited to its rollouts): null when it keeps every rollout. */
  onFilter: (where: RolloutWhere | null) => void = () => {};
  private readonly chosen = new Set<string>();

  constructor(
    public state: TableState,
    private readonly fetchPage: PageSource,
    private readonly onOpen: (file: string, compare?: string, more?: string[]) => void,
    private readonly onState: (s: TableState) => void,
  ) {
    this.filterInput.value = state.filter;
    this.filterInput.addEventListener("input", () => this.update({ filter: this.filterInput.value }));
    this.statusSelect.addEventListener("change", () => this.update({ status: this.statusSelect.value }));
    this.compareBtn.addEventListener("click", () => {
      const [a, b, ...more] = [...this.chosen];
      if (a && b) this.onOpen(a, b, more);
    });
    const range = (label: string, lo: (typeof RANGE_KEYS)[number], hi: (typeof RANGE_KEYS)[number]) =>
      h("span", { class: "range" }, `${label} `, this.numberInput(lo, "min"), "–", this.numberInput(hi, "max"));
    this.metaInput.value = state.meta ?? "";
    this.metaInput.addEventListener("input", () => this.update({ meta: this.metaInput.value }));
    this.el = h(
      "div",
      { class: "rollouts" },
      h("div", { class: "toolbar" }, this.filterInput, this.statusSelect, this.compareBtn, this.counter),
      h(
        "div",
        { class: "toolbar filters" },
        range("reward", "rewardMin", "rewardMax"),
        range("duration (s)", "durationMin", "durationMax"),
        range("tokens", "tokensMin", "tokensMax"),
        this.metaInput,
        this.metaError,
      ),
      this.metaKeys,
    );
    this.view = new VirtualTable("rollout-table", this.thead, (i) => this.rowAt(i));
    this.el.appendChild(this.view.el);
  }

  private numberInput(key: (typeof RANGE_KEYS)[number], placeholder: string): HTMLInputElement {
    const input = h("input", { type: "number", step: "any", placeholder, "aria-label": key, class: "num-filter", "data-key": key });
    input.value = this.state[key] ?? "";
    input.addEventListener("input", () => this.update({ [key]: input.value }));
    return input;
  }

  /** The run's statuses and metadata keys, offered by the filters. */
  setChoices(statuses: readonly string[], metaKeys: readonly string[]): void {
    clear(this.metaKeys);
    for (const k of metaKeys) this.metaKeys.appendChild(h("option", { value: `${k}=` }));
    clear(this.statusSelect);
    this.statusSelect.appendChild(h("option", { value: "" }, "all statuses"));
    for (const s of statuses) this.statusSelect.appendChild(h("option", { value: s, selected: s === this.state.status }, s));
  }

  /**
   * The rows in view asked for anew (a live run grew), or the first rows (`fromTop`: the run is opened;
   * nothing is measured then, so the opening does not wait on a layout of the page).
   */
  reload(fromTop = false): Promise<void> {
    return this.render(fromTop);
  }

  private update(patch: Partial<TableState>): void {
    this.state = { ...this.state, ...patch };
    this.onState(this.state);
    void this.render(true);
  }

  private query(from: number) {
    return { sort: this.state.sort, desc: this.state.desc, where: whereOf(this.state), from, count: PAGE };
  }

  /**
   * Asks for the page of the first row in view under the current sort and filter (the top, when
   * `toTop`: a new filter or sort), then redraws; the other pages in view are asked for as drawn.
   */
  private async render(toTop: boolean): Promise<void> {
    this.renderHead();
    this.metaError.textContent = parseMetaConditions(this.state.meta ?? "").errors.join("; ");
    const gen = ++this.gen;
    this.asked.clear();
    // Busy until the rows of this sort and filter are drawn (assistive technology, and tests, wait on it).
    this.view.table.setAttribute("aria-busy", "true");
    const first = toTop ? 0 : Math.floor(this.view.firstInView() / PAGE);
    let page: RolloutPage;
    try {
      page = await this.fetchPage(this.query(first * PAGE));
    } catch (err) {
      if (gen === this.gen) this.counter.textContent = `rows not loaded: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    if (gen !== this.gen) return;
    this.pages = new Map([[first, page.rows]]);
    this.version = page.version;
    this.matched = page.matched;
    this.onFilter(page.matched === page.total ? null : whereOf(this.state));
    await this.view.setCount(page.matched, toTop);
    // The count and the rows in the same frame (this runs before that frame paints); a newer filter's are still to come.
    if (gen !== this.gen) return;
    this.counter.textContent = `${page.matched.toLocaleString()} of ${page.total.toLocaleString()} rollouts`;
    this.view.table.setAttribute("aria-busy", "false");
  }

  /** Row `i` as shown: drawn when its page is here, else a placeholder while its page is asked for. */
  private rowAt(i: number): HTMLElement {
    const p = Math.floor(i / PAGE);
    const row = this.pages.get(p)?.[i - p * PAGE];
    if (row) return this.rowView(row);
    this.ask(p);
    return h(
      "tr",
      { class: "row-loading" },
      h("td", {}, h("input", { type: "checkbox", disabled: true })),
      ...COLUMNS.map(() => h("td", {}, "…")),
    );
  }

  private ask(p: number): void {
    if (this.asked.has(p) || p * PAGE >= this.matched) return;
    this.asked.add(p);
    const gen = this.gen;
    this.fetchPage(this.query(p * PAGE)).then(
      (page) => {
        if (gen !== this.gen) return;
        // The server rebuilt the table (a live run grew): the rows in view are asked for anew.
        if (page.version !== this.version || page.matched !== this.matched) return void this.render(false);
        this.pages.set(p, page.rows);
        this.view.render();
      },
      () => {
        if (gen === this.gen) this.asked.delete(p);
      },
    );
  }

  private renderHead(): void {
    clear(this.thead);
    this.thead.appendChild(
      h(
        "tr",
        {},
        h("th", {}, ""),
        ...COLUMNS.map((c) =>
          h(
            "th",
            {
              class: `sortable${c.num ? " num" : ""}`,
              "data-key": c.key,
              onclick: () => this.update(this.state.sort === c.key ? { desc: !this.state.desc } : { sort: c.key, desc: false }),
            },
            c.label,
            this.state.sort === c.key ? (this.state.desc ? " ▼" : " ▲") : "",
          ),
        ),
      ),
    );
    // Widths through the CSSOM (the pages' CSP allows no style attributes).
    const cells = this.thead.querySelectorAll("th");
    cells[0]?.style.setProperty("width", "32px");
    for (const [i, c] of COLUMNS.entries()) cells[i + 1]?.style.setProperty("width", c.width);
  }

  /** One rollout's row. */
  private rowView(r: RolloutRow): HTMLElement {
    const box = h("input", { type: "checkbox", "aria-label": `select ${r.id}`, checked: this.chosen.has(r.file) });
    box.addEventListener("click", (e) => {
      e.stopPropagation();
      if (box.checked) this.chosen.add(r.file);
      else this.chosen.delete(r.file);
      this.compareBtn.disabled = this.chosen.size < 2 || this.chosen.size > MAX_COMPARE;
    });
    const bad = r.status !== "completed";
    return h(
      "tr",
      { class: "clickable", "data-file": r.file, onclick: () => this.onOpen(r.file) },
      h("td", {}, box),
      h(
        "td",
        { title: visibleName(r.id) },
        visibleName(r.id),
        r.problemCount
          ? h(
              "span",
              { class: "badge warn", title: r.problems.join("\n") },
              `${r.problemCount.toLocaleString()} problem${r.problemCount === 1 ? "" : "s"}`,
            )
          : null,
      ),
      h("td", {}, r.task === null ? "–" : visibleName(r.task)),
      h("td", { class: "num" }, r.sample ?? "–"),
      h("td", {}, h("span", { class: `badge ${bad ? r.status : "completed"}` }, r.status)),
      h("td", { class: `num ${r.reward === null ? "" : r.reward >= 1 ? "pass" : "fail"}` }, fmtNum(r.reward)),
      h("td", { class: "num" }, r.turns ?? "–"),
      h("td", { class: "num" }, fmtMs(r.duration_ms)),
      h("td", { class: "num" }, r.tokens?.toLocaleString() ?? "–"),
    );
  }
}

import { clear, fmtMs, fmtNum, h } from "../../shared/dom";
import { parseMetaConditions, rolloutTest } from "../../../../src/core/view/model/rollout-filter";
import { filterInSlices, type RolloutKey as Key, sortedOrder } from "../../../../src/core/view/model/rollout-order";
import type { RolloutRow } from "./protocol";
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
/** A filter's slice of rows before it gives the page back (a task over 50 ms is one a person feels). */
const FILTER_SLICE_MS = 8;
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

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

/**
 * The rollouts of a run: sortable by any column, filtered by text, status, ranges and metadata; a
 * click opens the viewer. The table draws only the rows in view (VirtualTable); each sort order is
 * computed once per set of rows, and a filter walks it in slices that give the page back between them.
 */
export class RolloutTable {
  readonly el: HTMLElement;
  private readonly filterInput = h("input", { type: "search", placeholder: "filter by rollout, task or status", "aria-label": "filter" });
  private readonly statusSelect = h("select", { "aria-label": "status" });
  private readonly compareBtn = h("button", { disabled: true, title: "Select two to four rollouts" }, "Compare selected");
  private readonly thead = h("thead");
  private readonly view: VirtualTable;
  /** Indexes into `rows` of the rows shown, in the order shown. */
  private shown: Int32Array = new Int32Array(0);
  /** Sort orders computed for the current rows, by `key:desc`. */
  private readonly orders = new Map<string, Int32Array>();
  /** Bumped by each filter run: a slower earlier run stops at its next slice. */
  private filterSeq = 0;
  private readonly counter = h("span", { class: "meta-item" });
  private rows: RolloutRow[] = [];
  private readonly metaInput = h("input", {
    type: "text",
    placeholder: "metadata: policy.model=…, task.id~…",
    "aria-label": "metadata filter",
    class: "meta-filter",
    list: "meta-keys",
  });
  private readonly metaError = h("span", { class: "fail meta-item" });
  private readonly metaKeys = h("datalist", { id: "meta-keys" });
  /** Called when the visible rows change (the search is limited to them). */
  onFilter: (rows: RolloutRow[]) => void = () => {};
  private readonly chosen = new Set<string>();

  constructor(
    public state: TableState,
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
      null,
    );
    this.view = new VirtualTable("rollout-table", this.thead, (i) => this.rowView(this.rows[this.shown[i]!]!));
    this.el.appendChild(this.view.el);
  }

  private numberInput(key: (typeof RANGE_KEYS)[number], placeholder: string): HTMLInputElement {
    const input = h("input", { type: "number", step: "any", placeholder, "aria-label": key, class: "num-filter", "data-key": key });
    input.value = this.state[key] ?? "";
    input.addEventListener("input", () => this.update({ [key]: input.value }));
    return input;
  }

  setRows(rows: RolloutRow[]): void {
    this.rows = rows;
    this.orders.clear();
    const keys = new Set<string>();
    for (const r of rows) for (const [k] of r.meta) keys.add(k);
    clear(this.metaKeys);
    for (const k of [...keys].sort()) this.metaKeys.appendChild(h("option", { value: `${k}=` }));
    if (!this.metaKeys.isConnected) this.el.appendChild(this.metaKeys);
    const statuses = [...new Set(rows.map((r) => r.status))].sort();
    clear(this.statusSelect);
    this.statusSelect.appendChild(h("option", { value: "" }, "all statuses"));
    for (const s of statuses) this.statusSelect.appendChild(h("option", { value: s, selected: s === this.state.status }, s));
    void this.render(false);
  }

  private update(patch: Partial<TableState>): void {
    this.state = { ...this.state, ...patch };
    this.onState(this.state);
    void this.render(true);
  }

  /** The current sort's order of all rows (nulls last), computed once per sort and set of rows. */
  private order(): Int32Array {
    const key = `${this.state.sort}:${this.state.desc}`;
    let order = this.orders.get(key);
    if (!order) {
      order = sortedOrder(this.rows, this.state.sort, this.state.desc);
      this.orders.set(key, order);
    }
    return order;
  }

  /** The rows shown: filtered (in slices), then drawn; `toTop` scrolls back up (a new filter or sort). */
  private async render(toTop: boolean): Promise<void> {
    this.renderHead();
    const s = this.state;
    this.metaError.textContent = parseMetaConditions(s.meta ?? "").errors.join("; ");
    const seq = ++this.filterSeq;
    const test = rolloutTest({
      text: s.filter,
      status: s.status,
      reward: { min: num(s.rewardMin), max: num(s.rewardMax) },
      duration: { min: num(s.durationMin), max: num(s.durationMax) },
      tokens: { min: num(s.tokensMin), max: num(s.tokensMax) },
      meta: s.meta ?? "",
    });
    const shown = await filterInSlices(this.order(), this.rows, test, {
      budgetMs: FILTER_SLICE_MS,
      pause: nextTask,
      stale: () => seq !== this.filterSeq,
    });
    if (shown === null || seq !== this.filterSeq) return;
    this.shown = shown;
    const rows = Array.from(shown, (k) => this.rows[k]!);
    this.onFilter(rows);
    this.counter.textContent = `${rows.length.toLocaleString()} of ${this.rows.length.toLocaleString()} rollouts`;
    this.view.setCount(rows.length, toTop);
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

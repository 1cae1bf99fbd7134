import { clear, fmtMs, fmtNum, h } from "../../shared/dom";
import { filterRollouts, parseMetaConditions } from "../../../../src/core/view/model/rollout-filter";
import type { RolloutRow } from "./protocol";
import { MAX_COMPARE } from "../../../../src/core/view/protocol/trajectory";
import { visibleName } from "../../../../src/core/view/model/visible-text";

type Key = "id" | "task" | "sample" | "status" | "reward" | "turns" | "duration_ms" | "tokens";
const COLUMNS: Array<{ key: Key; label: string; num?: boolean }> = [
  { key: "id", label: "rollout" },
  { key: "task", label: "task" },
  { key: "sample", label: "sample", num: true },
  { key: "status", label: "status" },
  { key: "reward", label: "reward", num: true },
  { key: "turns", label: "turns", num: true },
  { key: "duration_ms", label: "duration", num: true },
  { key: "tokens", label: "tokens", num: true },
];

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

/** The rollouts of a run: sortable by any column, filtered by text and status; a click opens the viewer. */
export class RolloutTable {
  readonly el: HTMLElement;
  private readonly filterInput = h("input", { type: "search", placeholder: "filter by rollout, task or status", "aria-label": "filter" });
  private readonly statusSelect = h("select", { "aria-label": "status" });
  private readonly compareBtn = h("button", { disabled: true, title: "Select two to four rollouts" }, "Compare selected");
  private readonly tbody = h("tbody");
  private readonly thead = h("thead");
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
      h("table", { class: "grid rollout-table" }, this.thead, this.tbody),
    );
  }

  private numberInput(key: (typeof RANGE_KEYS)[number], placeholder: string): HTMLInputElement {
    const input = h("input", { type: "number", step: "any", placeholder, "aria-label": key, class: "num-filter", "data-key": key });
    input.value = this.state[key] ?? "";
    input.addEventListener("input", () => this.update({ [key]: input.value }));
    return input;
  }

  setRows(rows: RolloutRow[]): void {
    this.rows = rows;
    const keys = new Set<string>();
    for (const r of rows) for (const [k] of r.meta) keys.add(k);
    clear(this.metaKeys);
    for (const k of [...keys].sort()) this.metaKeys.appendChild(h("option", { value: `${k}=` }));
    if (!this.metaKeys.isConnected) this.el.appendChild(this.metaKeys);
    const statuses = [...new Set(rows.map((r) => r.status))].sort();
    clear(this.statusSelect);
    this.statusSelect.appendChild(h("option", { value: "" }, "all statuses"));
    for (const s of statuses) this.statusSelect.appendChild(h("option", { value: s, selected: s === this.state.status }, s));
    this.render();
  }

  private update(patch: Partial<TableState>): void {
    this.state = { ...this.state, ...patch };
    this.onState(this.state);
    this.render();
  }

  /** The rows shown: filtered, then sorted (nulls last). */
  visible(): RolloutRow[] {
    const s = this.state;
    const out = filterRollouts(this.rows, {
      text: s.filter,
      status: s.status,
      reward: { min: num(s.rewardMin), max: num(s.rewardMax) },
      duration: { min: num(s.durationMin), max: num(s.durationMax) },
      tokens: { min: num(s.tokensMin), max: num(s.tokensMax) },
      meta: s.meta ?? "",
    });
    const k = this.state.sort;
    const dir = this.state.desc ? -1 : 1;
    return out.sort((a, b) => {
      const x = a[k];
      const y = b[k];
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (
        (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true })) * dir
      );
    });
  }

  private render(): void {
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
    clear(this.tbody);
    const rows = this.visible();
    this.metaError.textContent = parseMetaConditions(this.state.meta ?? "").errors.join("; ");
    this.onFilter(rows);
    this.counter.textContent = `${rows.length} of ${this.rows.length} rollouts`;
    for (const r of rows) {
      const box = h("input", { type: "checkbox", "aria-label": `select ${r.id}`, checked: this.chosen.has(r.file) });
      box.addEventListener("click", (e) => {
        e.stopPropagation();
        if (box.checked) this.chosen.add(r.file);
        else this.chosen.delete(r.file);
        this.compareBtn.disabled = this.chosen.size < 2 || this.chosen.size > MAX_COMPARE;
      });
      const bad = r.status !== "completed";
      this.tbody.appendChild(
        h(
          "tr",
          { class: "clickable", "data-file": r.file, onclick: () => this.onOpen(r.file) },
          h("td", {}, box),
          h(
            "td",
            {},
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
        ),
      );
    }
  }
}

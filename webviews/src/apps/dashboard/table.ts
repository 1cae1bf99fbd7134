import { clear, fmtMs, fmtNum, h } from "../../shared/dom";
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
}

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
    this.el = h("div", { class: "rollouts" }, h("div", { class: "toolbar" }, this.filterInput, this.statusSelect, this.compareBtn, this.counter), h("table", { class: "grid rollout-table" }, this.thead, this.tbody));
  }

  setRows(rows: RolloutRow[]): void {
    this.rows = rows;
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
    const f = this.state.filter.trim().toLowerCase();
    const out = this.rows.filter((r) => (!this.state.status || r.status === this.state.status) && (!f || `${r.id} ${r.task ?? ""} ${r.status}`.toLowerCase().includes(f)));
    const k = this.state.sort;
    const dir = this.state.desc ? -1 : 1;
    return out.sort((a, b) => {
      const x = a[k];
      const y = b[k];
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true })) * dir;
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
          h("th", { class: `sortable${c.num ? " num" : ""}`, "data-key": c.key, onclick: () => this.update(this.state.sort === c.key ? { desc: !this.state.desc } : { sort: c.key, desc: false }) }, c.label, this.state.sort === c.key ? (this.state.desc ? " ▼" : " ▲") : ""),
        ),
      ),
    );
    clear(this.tbody);
    const rows = this.visible();
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
          h("td", {}, visibleName(r.id), r.problemCount ? h("span", { class: "badge warn", title: r.problems.join("\n") }, `${r.problemCount.toLocaleString()} problem${r.problemCount === 1 ? "" : "s"}`) : null),
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

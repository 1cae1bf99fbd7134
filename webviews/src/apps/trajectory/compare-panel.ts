import type { HostApi } from "../../shared/api";
import { clear, h } from "../../shared/dom";
import type { RowSummary } from "./protocol";
import { renderStep } from "./step-render";

/** Two rollouts of the same task side by side, turns aligned on their tool calls. */
export class ComparePanel {
  readonly el: HTMLElement;
  private readonly picker = h("select", { "aria-label": "compare with" });
  private readonly body = h("div", { class: "compare" });
  private other: string | null;

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
    compare: string | undefined,
    private readonly onChoose: (other: string) => void,
  ) {
    this.other = compare ?? null;
    this.picker.addEventListener("change", () => {
      this.other = this.picker.value || null;
      if (this.other) this.onChoose(this.other);
      void this.show();
    });
    this.el = h("div", { class: "panel", style: "flex-direction:column" }, h("div", { class: "toolbar" }, "Compare with ", this.picker), this.body);
  }

  get target(): string | null {
    return this.other;
  }

  /** Fills the picker with the other rollouts of the run, same task first. */
  async fillPicker(task: string | null): Promise<void> {
    clear(this.picker);
    this.picker.appendChild(h("option", { value: "" }, "— choose a rollout —"));
    const dir = this.file.includes("/rollouts/") ? this.file.slice(0, this.file.lastIndexOf("/rollouts/")) : this.file.startsWith("rollouts/") ? "." : null;
    if (dir === null) return;
    try {
      const run = await this.api.request("run", { dir });
      const others = run.rollouts.filter((r) => r.file !== this.file).sort((a, b) => Number(b.task === task) - Number(a.task === task));
      for (const r of others) this.picker.appendChild(h("option", { value: r.file, selected: r.file === this.other }, `${r.id} · ${r.task ?? "?"} · reward ${r.reward?.toFixed(2) ?? "–"}`));
    } catch {
      // Not inside a run folder: only the compare target given at open time can be shown.
      if (this.other) this.picker.appendChild(h("option", { value: this.other, selected: true }, this.other));
    }
  }

  async show(): Promise<void> {
    clear(this.body);
    if (!this.other) {
      this.body.appendChild(h("div", { class: "empty" }, "Choose a second rollout to compare."));
      return;
    }
    const b = this.other;
    const [pairs, rowsA, rowsB] = await Promise.all([this.api.request("align", { a: this.file, b }), this.allRows(this.file), this.allRows(b)]);
    const cell = (file: string, rows: RowSummary[], i: number | null) => {
      if (i === null) return h("td", { class: "gap" }, "—");
      const r = rows[i];
      const td = h("td", { class: "cmp-cell" }, h("div", { class: "r1" }, h("b", {}, r?.title ?? `#${i}`), " ", h("span", { class: "meta-item" }, r?.tools.join(", ") ?? "")), h("div", { class: "meta-item" }, r?.preview ?? ""));
      td.addEventListener("click", () => {
        void this.api.request("step", { file, row: i }).then((s) => {
          const open = td.querySelector(".step");
          if (open) open.remove();
          else td.appendChild(renderStep(s));
        });
      });
      return td;
    };
    this.body.appendChild(
      h(
        "table",
        { class: "grid compare-table" },
        h("thead", {}, h("tr", {}, h("th", {}, this.file), h("th", {}, b))),
        h("tbody", {}, ...pairs.map((p) => h("tr", {}, cell(this.file, rowsA, p.a), cell(b, rowsB, p.b)))),
      ),
    );
  }

  private async allRows(file: string): Promise<RowSummary[]> {
    const meta = await this.api.request("meta", { file });
    const out: RowSummary[] = [];
    for (let i = 0; i < meta.rows; i += 500) out.push(...(await this.api.request("rows", { file, from: i, to: Math.min(meta.rows, i + 500) })));
    return out;
  }
}

import { visibleBidi, visibleName } from "../../../../src/core/view/model/visible-text";
import type { HostApi } from "../../shared/api";
import { clear, h } from "../../shared/dom";
import type { RolloutWhere, SearchHit } from "./protocol";

/** A snippet with the searched words marked (text nodes only). */
function marked(hit: SearchHit): HTMLElement {
  const el = h("span", { class: "snippet" });
  let at = 0;
  for (const [s, e] of hit.ranges) {
    if (s < at) continue;
    el.append(visibleBidi(hit.snippet.slice(at, s)), h("mark", {}, visibleBidi(hit.snippet.slice(s, e))));
    at = e;
  }
  el.append(visibleBidi(hit.snippet.slice(at)));
  return el;
}

/**
 * Full-text search over every message, tool call and observation of the run (the
 * `rlenv view` side keeps the index), limited to the rollouts the table's filters leave;
 * a hit opens the viewer at its step.
 */
export class SearchPanel {
  readonly el: HTMLElement;
  private readonly input = h("input", {
    type: "search",
    placeholder: "search messages, tool calls and observations",
    "aria-label": "search the run",
    class: "run-search",
  });
  private readonly status = h("span", { class: "meta-item search-status" });
  private readonly results = h("div", { class: "search-results" });
  /** The table's filter; null when it keeps every rollout. */
  private where: RolloutWhere | null = null;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: HostApi,
    private readonly dir: string,
    private readonly open: (file: string, row: number) => void,
  ) {
    this.input.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.run(), 200);
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") void this.run();
    });
    this.el = h("div", { class: "search" }, h("div", { class: "toolbar" }, this.input, this.status), this.results);
  }

  /** The table's filter now: a search looks only in the rollouts it keeps (the server resolves it over every rollout). */
  setWhere(where: RolloutWhere | null): void {
    if (JSON.stringify(where) === JSON.stringify(this.where)) return;
    this.where = where;
    if (this.input.value.trim()) void this.run();
  }

  async run(): Promise<void> {
    const query = this.input.value.trim();
    const seq = ++this.seq;
    clear(this.results);
    if (!query) {
      this.status.textContent = "";
      return;
    }
    this.status.textContent = "searching…";
    try {
      const r = await this.api.request("search", { dir: this.dir, query, ...(this.where ? { where: this.where } : {}), limit: 100 });
      if (seq !== this.seq) return;
      this.status.textContent = `${r.total.toLocaleString()} match${r.total === 1 ? "" : "es"} in ${r.files.toLocaleString()} rollout${r.files === 1 ? "" : "s"}${r.total > r.hits.length ? ` · first ${r.hits.length} shown` : ""}`;
      for (const hit of r.hits)
        this.results.appendChild(
          h(
            "div",
            { class: "hit clickable", "data-file": hit.file, "data-row": hit.row, onclick: () => this.open(hit.file, hit.row) },
            h(
              "span",
              { class: "hit-where" },
              `${visibleName(hit.file.split("/").pop() ?? hit.file)} · step ${hit.row} · ${hit.kind.replace("_", " ")}`,
            ),
            " ",
            marked(hit),
          ),
        );
    } catch (err) {
      if (seq === this.seq) this.status.textContent = String(err);
    }
  }
}

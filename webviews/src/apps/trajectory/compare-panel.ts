import { COMPARE_PAGE, rowRangesFor } from "../../../../src/core/view/model/compare-window";
import { matchesRollout, parseRolloutQuery, rolloutHaystack } from "../../../../src/core/view/model/rollout-query";
import { visibleName } from "../../../../src/core/view/model/visible-text";
import type { HostApi } from "../../shared/api";
import { clear, h } from "../../shared/dom";
import { FilterPicker, type PickerOption } from "../../shared/filter-picker";
import { VirtualList } from "../../shared/virtual-list";
import { MAX_COMPARE, type RowSummary } from "./protocol";
import { renderStep } from "./step-render";

const LINE_HEIGHT = 46;
/** How often a compare of a rollout still being read asks for the alignment again. */
const FOLLOW_MS = 700;
type Line = Array<RowSummary | null | undefined>;
/** A rollout in a compare picker: its label, and what its filter reads (lower case, made once). */
interface RolloutOption extends PickerOption {
  id: string;
  task: string | null;
  reward: number | null;
  haystack: string;
}

function rolloutOption(file: string, id: string, task: string | null, reward: number | null): RolloutOption {
  const label = `${visibleName(id)} · ${visibleName(task ?? "?")} · reward ${reward?.toFixed(2) ?? "–"}`;
  // The file name too: a person may type what they see in a folder listing.
  return { value: file, label, id, task, reward, haystack: `${rolloutHaystack({ id, task, reward })}\n${file.toLowerCase()}` };
}

/** A picker's filter: words in the id, task, reward or file name, and reward bounds (reward>0.5). */
function rolloutFilter(text: string): (o: RolloutOption) => boolean {
  const q = parseRolloutQuery(text);
  return (o) => matchesRollout(q, o, o.haystack);
}

/**
 * Up to four rollouts side by side, turns aligned by step on their tool calls. The
 * aligned lines are a virtual list (a rollout of 66,668 steps keeps a screenful in the
 * DOM); a click shows that line's steps below, each in its own column.
 */
export class ComparePanel {
  readonly el: HTMLElement;
  private readonly pickers: FilterPicker<RolloutOption>[] = [];
  private readonly head = h("div", { class: "cmp-head" });
  private readonly listHost = h("div", { class: "cmp-list" });
  private readonly detail = h("div", { class: "cmp-detail" });
  private list: VirtualList<Line> | null = null;
  private files: string[] = [];
  private lines: Array<Array<number | null>> = [];
  private others: string[];
  /** Bumped by each show(): replies and follow-ups of an earlier one are dropped. */
  private showSeq = 0;

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
    others: string[],
    private readonly onChoose: (others: string[]) => void,
  ) {
    this.others = others.slice(0, MAX_COMPARE - 1);
    for (let k = 0; k < MAX_COMPARE - 1; k++) {
      const picker = new FilterPicker<RolloutOption>({
        label: k === 0 ? "compare with" : `and rollout ${k + 2}`,
        placeholder: k === 0 ? "choose a rollout: id, task, reward>0.5…" : "none",
        noneLabel: k === 0 ? "— choose a rollout —" : "— none —",
        noun: "rollout",
        filter: rolloutFilter,
        attrs: { "data-slot": k },
      });
      picker.onChange = () => {
        this.others = this.pickers.map((p) => p.value).filter((v) => v !== "");
        this.onChoose(this.others);
        void this.show();
      };
      this.pickers.push(picker);
    }
    const [p0, p1, p2] = this.pickers.map((p) => p.el);
    this.el = h(
      "div",
      { class: "panel compare-panel", style: "flex-direction:column" },
      h("div", { class: "toolbar" }, "Compare with ", p0, " and ", p1, " and ", p2),
      this.head,
      this.listHost,
      this.detail,
    );
  }

  get targets(): string[] {
    return this.others;
  }

  /** Fills the pickers with the other rollouts of the run, same task first. */
  async fillPicker(task: string | null): Promise<void> {
    const dir = this.file.includes("/rollouts/")
      ? this.file.slice(0, this.file.lastIndexOf("/rollouts/"))
      : this.file.startsWith("rollouts/")
        ? "."
        : null;
    // Outside a run folder: the targets given at open time, by their file names.
    let options: RolloutOption[] = this.others.map((o) => ({ ...rolloutOption(o, o, null, null), label: visibleName(o) }));
    // The targets show at once; the run's list (a request the server may answer late, while it
    // still reads a large file) replaces them when it comes.
    for (const [k, picker] of this.pickers.entries()) picker.setOptions(options, this.others[k] ?? "");
    if (dir !== null) {
      try {
        const rollouts = await this.api.request("rollouts", { dir });
        // The rollout itself only when it is a target already (compared with itself, as a check of the view).
        options = rollouts
          .filter((r) => r.file !== this.file || this.others.includes(r.file))
          .sort((a, b) => Number(b.task === task) - Number(a.task === task))
          .map((r) => rolloutOption(r.file, r.id, r.task, r.reward));
      } catch {
        // Not inside a run folder: only the compare targets given at open time can be shown.
      }
    }
    for (const [k, picker] of this.pickers.entries()) picker.setOptions(options, this.others[k] ?? "");
  }

  async show(): Promise<void> {
    const seq = ++this.showSeq;
    clear(this.head);
    clear(this.listHost);
    clear(this.detail);
    this.list = null;
    if (!this.others.length) {
      this.listHost.appendChild(h("div", { class: "empty" }, "Choose up to three rollouts to compare."));
      return;
    }
    this.files = [this.file, ...this.others];
    const aligned = await this.api.request("align", { files: this.files });
    if (seq !== this.showSeq) return;
    this.head.style.setProperty("--cols", String(this.files.length));
    for (const f of this.files) this.head.appendChild(h("div", { class: "cmp-col-head", title: visibleName(f) }, visibleName(f)));
    this.showLines(aligned.lines);
    if (aligned.partial) void this.follow(seq).catch((err: unknown) => console.error("align", err));
  }

  /**
   * While a rollout is still being read, asks for the alignment again until it is whole: lines
   * that only grew extend the list; an alignment that changed redraws it where it was scrolled.
   */
  private async follow(seq: number): Promise<void> {
    for (;;) {
      await new Promise((r) => setTimeout(r, FOLLOW_MS));
      if (seq !== this.showSeq) return;
      const aligned = await this.api.request("align", { files: this.files });
      if (seq !== this.showSeq) return;
      const old = this.lines;
      const grew = old.every((l, i) => l.every((r, k) => aligned.lines[i]?.[k] === r));
      if (grew && this.list) {
        this.lines = aligned.lines;
        this.list.setCount(this.lines.length);
      } else this.showLines(aligned.lines);
      if (!aligned.partial) return;
    }
  }

  /** The aligned lines as a fresh virtual list (kept at the scroll position of the one it replaces). */
  private showLines(lines: Array<Array<number | null>>): void {
    const scrolled = this.list?.el.scrollTop ?? 0;
    clear(this.listHost);
    this.lines = lines;
    this.list = new VirtualList<Line>(
      LINE_HEIGHT,
      COMPARE_PAGE,
      (from, to) => this.load(from, to),
      (line, i, selected) => this.lineView(line, i, selected),
      (i) => void this.showLine(i),
    );
    this.list.el.classList.add("compare-table");
    this.list.el.style.setProperty("--cols", String(this.files.length));
    this.listHost.appendChild(this.list.el);
    this.list.setCount(this.lines.length);
    this.list.el.scrollTop = scrolled;
    this.list.render();
  }

  /** Row summaries of aligned lines [from, to), fetched per rollout as one range each. */
  private async load(from: number, to: number): Promise<Line[]> {
    const window = this.lines.slice(from, to);
    const byFile = await Promise.all(
      this.files.map(async (file, k) => {
        const got = new Map<number, RowSummary>();
        for (const range of rowRangesFor(window, k)) {
          for (const r of await this.api.request("rows", { file, ...range })) got.set(r.index, r);
        }
        return got;
      }),
    );
    return window.map((l) => l.map((r, k) => (r === null || r === undefined ? null : byFile[k]!.get(r))));
  }

  private lineView(line: Line | undefined, i: number, selected: boolean): HTMLElement {
    const row = h("div", { class: `cmp-line${selected ? " selected" : ""}`, role: "option", "data-line": i });
    for (let k = 0; k < this.files.length; k++) {
      const at = this.lines[i]?.[k];
      const r = line?.[k];
      if (at === null || at === undefined) row.appendChild(h("div", { class: "cmp-cell gap" }, "—"));
      else
        row.appendChild(
          h(
            "div",
            { class: "cmp-cell" },
            h(
              "div",
              { class: "r1" },
              h("b", {}, r?.title ?? `#${at}`),
              " ",
              h("span", { class: "meta-item" }, r?.tools.map(visibleName).join(", ") ?? ""),
            ),
            h("div", { class: "meta-item r2" }, r?.preview ?? "…"),
          ),
        );
    }
    return row;
  }

  /** The steps of one aligned line, side by side (each paged like the Steps view). */
  private async showLine(i: number): Promise<void> {
    const line = this.lines[i];
    if (!line) return;
    clear(this.detail);
    this.detail.style.setProperty("--cols", String(this.files.length));
    for (const [k, file] of this.files.entries()) {
      const col = h("div", { class: "cmp-step", "data-col": k });
      this.detail.appendChild(col);
      const row = line[k];
      if (row === null || row === undefined) {
        col.appendChild(h("div", { class: "empty" }, "No matching step."));
        continue;
      }
      const draw = async (from: number) => {
        const step = await this.api.request("step", { file, row, from });
        clear(col);
        col.appendChild(renderStep(step, (next) => void draw(next)));
      };
      await draw(0);
    }
  }
}

import "./filter-picker.css";
import { fmtCount, h } from "./dom";

export interface PickerOption {
  /** What the picker's value becomes; "" is the "none" entry. */
  value: string;
  /** The one line shown (cut with an ellipsis, whole in its tooltip). */
  label: string;
}

export interface FilterPickerOptions<T extends PickerOption> {
  /** The input's accessible name. */
  label: string;
  /** Shown in the empty input. */
  placeholder: string;
  /** The first entry, which clears the choice (listed while nothing is typed). */
  noneLabel: string;
  /** A test for each option, made once per query text. */
  filter: (query: string) => (option: T) => boolean;
  /** What the list holds, singular ("rollout"): its count and its empty line say it. */
  noun: string;
  /** Extra attributes of the input (data-slot…). */
  attrs?: Record<string, string | number>;
}

const ROW_HEIGHT = 26;
const ROWS_SHOWN = 12;
/** Rows drawn above and below the ones in view, so a small scroll shows no gap. */
const MARGIN = 4;
let pickerCount = 0;

/**
 * A picker for a long list (a run's 10,000 rollouts): a text input that filters, over a list
 * that draws only the rows in view. A `<select>` held one `<option>` per item and was as wide
 * as its longest label; this one has a fixed width, cuts labels with an ellipsis and gives the
 * whole label as a tooltip. The WAI-ARIA combobox pattern: the input is the combobox, the list a
 * listbox whose active option is the input's aria-activedescendant; Down/Up/PageDown/PageUp move,
 * Enter chooses, Escape closes (the input shows the chosen label again).
 */
export class FilterPicker<T extends PickerOption> {
  readonly el: HTMLElement;
  readonly input: HTMLInputElement;
  /** Called when the user chooses another option (not on setOptions). */
  onChange: (value: string) => void = () => {};
  private readonly listId: string;
  private readonly popup: HTMLElement;
  private readonly list: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly status: HTMLElement;
  private readonly none: T;
  private options: T[] = [];
  private shown: T[] = [];
  private active = -1;
  private chosen = "";
  private expanded = false;
  private frame = 0;

  constructor(private readonly o: FilterPickerOptions<T>) {
    this.listId = `picker-${++pickerCount}-list`;
    this.none = { value: "", label: o.noneLabel } as T;
    this.input = h("input", {
      type: "text",
      class: "picker-input",
      role: "combobox",
      "aria-label": o.label,
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": this.listId,
      placeholder: o.placeholder,
      autocomplete: "off",
      spellcheck: "false",
      ...o.attrs,
    });
    this.spacer = h("div", { class: "picker-spacer" });
    this.list = h("div", { class: "picker-list", id: this.listId, role: "listbox", "aria-label": o.label, tabindex: -1 }, this.spacer);
    this.status = h("div", { class: "picker-status", "aria-live": "polite" });
    this.popup = h("div", { class: "picker-popup", hidden: true }, this.list, this.status);
    this.el = h("div", { class: "picker", "data-value": "" }, this.input, this.popup);
    this.wire();
  }

  get value(): string {
    return this.chosen;
  }

  /** The options and the chosen value (no onChange). */
  setOptions(options: T[], value: string): void {
    this.options = options;
    this.chosen = options.some((x) => x.value === value) ? value : "";
    this.el.dataset.value = this.chosen;
    if (this.expanded) this.refilter(this.input.value);
    else this.showChosen();
  }

  private wire(): void {
    this.input.addEventListener("focus", () => this.open());
    this.input.addEventListener("click", () => this.open());
    this.input.addEventListener("input", () => {
      if (!this.expanded) this.open(false);
      this.refilter(this.input.value);
    });
    this.input.addEventListener("blur", () => this.close());
    this.input.addEventListener("keydown", (e) => this.key(e));
    // A press on the list keeps the focus in the input (so its blur does not close the list first).
    this.popup.addEventListener("mousedown", (e) => e.preventDefault());
    this.list.addEventListener("scroll", () => this.schedule());
    this.list.addEventListener("click", (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>(".picker-option");
      const at = Number(row?.dataset.index);
      if (row && Number.isInteger(at)) this.choose(at);
    });
  }

  private key(e: KeyboardEvent): void {
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: ROWS_SHOWN, PageUp: -ROWS_SHOWN };
    const move = moves[e.key];
    if (move !== undefined) {
      e.preventDefault();
      if (!this.expanded) this.open(false);
      else this.activate(Math.max(0, Math.min(this.shown.length - 1, this.active + move)));
      return;
    }
    if (e.key === "Enter" && this.expanded) {
      e.preventDefault();
      if (this.active >= 0) this.choose(this.active);
    } else if (e.key === "Escape" && this.expanded) {
      e.preventDefault();
      e.stopPropagation();
      this.close();
    } else if (e.key === "Tab") this.close();
  }

  /** Opens the list over every option, the chosen one active; `selectText` readies the input to be typed over. */
  private open(selectText = true): void {
    if (this.expanded) return;
    this.expanded = true;
    this.input.setAttribute("aria-expanded", "true");
    this.popup.hidden = false;
    this.refilter("");
    const at = this.shown.findIndex((x) => x.value === this.chosen);
    this.activate(Math.max(0, at));
    this.fitToWindow();
    if (selectText) this.input.select();
  }

  private close(): void {
    if (!this.expanded) return;
    this.expanded = false;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
    this.popup.hidden = true;
    this.spacer.replaceChildren();
    this.showChosen();
  }

  private choose(index: number): void {
    const picked = this.shown[index];
    if (!picked) return;
    const changed = picked.value !== this.chosen;
    this.chosen = picked.value;
    this.el.dataset.value = this.chosen;
    this.close();
    if (changed) this.onChange(this.chosen);
  }

  /** The input shows the chosen option's label (whole in its tooltip), or nothing and the placeholder. */
  private showChosen(): void {
    const label = this.options.find((x) => x.value === this.chosen)?.label ?? "";
    this.input.value = label;
    this.input.title = label || this.o.placeholder;
  }

  private refilter(query: string): void {
    const q = query.trim();
    const test = q ? this.o.filter(q) : null;
    this.shown = test ? this.options.filter(test) : [this.none, ...this.options];
    const n = this.options.length;
    this.status.textContent = q
      ? `${fmtCount(this.shown.length)} of ${fmtCount(n)} match`
      : `${fmtCount(n)} ${this.o.noun}${n === 1 ? "" : "s"}`;
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    this.list.style.height = `${Math.max(1, Math.min(this.shown.length, ROWS_SHOWN)) * ROW_HEIGHT}px`;
    this.list.scrollTop = 0;
    this.active = -1;
    this.activate(this.shown.length ? 0 : -1);
    this.render();
  }

  /** Makes row `index` the active one, scrolled into view. */
  private activate(index: number): void {
    this.active = index;
    if (index >= 0) {
      const top = index * ROW_HEIGHT;
      if (top < this.list.scrollTop) this.list.scrollTop = top;
      else if (top + ROW_HEIGHT > this.list.scrollTop + this.list.clientHeight)
        this.list.scrollTop = top + ROW_HEIGHT - this.list.clientHeight;
    }
    this.render();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  /** Draws the rows in view (and a margin) at their places in the spacer. */
  private render(): void {
    this.frame = 0;
    if (!this.expanded) return;
    const height = this.list.clientHeight || ROWS_SHOWN * ROW_HEIGHT;
    const first = Math.max(0, Math.floor(this.list.scrollTop / ROW_HEIGHT) - MARGIN);
    const last = Math.min(this.shown.length, Math.ceil((this.list.scrollTop + height) / ROW_HEIGHT) + MARGIN);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const x = this.shown[i]!;
      const active = i === this.active;
      const row = h(
        "div",
        {
          class: `picker-option${active ? " active" : ""}${x.value === "" ? " none" : ""}`,
          role: "option",
          id: `${this.listId}-${i}`,
          "aria-selected": x.value === this.chosen ? "true" : "false",
          "data-index": i,
          "data-value": x.value,
          title: x.label,
        },
        x.label,
      );
      row.style.top = `${i * ROW_HEIGHT}px`;
      row.style.height = `${ROW_HEIGHT}px`;
      rows.push(row);
    }
    if (!this.shown.length) rows.push(h("div", { class: "picker-empty" }, `No ${this.o.noun} matches.`));
    this.spacer.replaceChildren(...rows);
    if (this.active >= 0) this.input.setAttribute("aria-activedescendant", `${this.listId}-${this.active}`);
    else this.input.removeAttribute("aria-activedescendant");
  }

  /** Keeps the open list inside the window (the toolbar's last picker sits near its right edge). */
  private fitToWindow(): void {
    this.popup.style.left = "0px";
    const r = this.popup.getBoundingClientRect();
    const over = r.right - (window.innerWidth - 8);
    if (over > 0) this.popup.style.left = `${-Math.min(over, r.left - 8)}px`;
  }
}

import { visibleBidi, visibleName } from "../../../../src/core/view/model/visible-text";
import type { HostApi } from "../../shared/api";
import { clear, h, jsonText } from "../../shared/dom";
import type { DocMark, DocPage, DocumentsView, FieldResult } from "./protocol";
import { clipped, verdict } from "./reward-fields";

const KIND_LABEL: Record<DocMark["kind"], string> = { cite: "cited", submitted: "submitted figure", gold: "gold figure" };

/**
 * Page text from `from` to `to` with its marks: the text is cut at every mark boundary and
 * each piece carries the classes of the marks over it (a cited span holding the submitted
 * figure shows both). Text nodes only.
 */
function markedText(text: string, marks: DocMark[], from = 0, to = text.length, tag: "pre" | "div" = "pre"): HTMLElement {
  const box = h(tag, { class: "page-text" });
  const cuts = new Set<number>([from, to]);
  for (const m of marks) for (const x of [m.start, m.end]) if (x > from && x < to) cuts.add(x);
  const points = [...cuts].sort((a, b) => a - b);
  for (let i = 0; i + 1 < points.length; i++) {
    const [s, e] = [points[i]!, points[i + 1]!];
    const over = marks.filter((m) => m.start <= s && m.end >= e);
    const piece = visibleBidi(text.slice(s, e));
    if (!over.length) {
      box.appendChild(document.createTextNode(piece));
      continue;
    }
    const kinds = [...new Set(over.map((m) => m.kind))];
    const title = over.map((m) => `${KIND_LABEL[m.kind]}${m.field ? ` (${m.field})` : ""}`).join(", ");
    box.appendChild(
      h(
        "mark",
        { class: kinds.map((k) => `m-${k}`).join(" "), title, "data-fields": over.flatMap((m) => (m.field ? [m.field] : [])).join(",") },
        piece,
      ),
    );
  }
  return box;
}

const pageName = (p: DocPage) => `${visibleName(p.document ?? p.tool)}${p.page !== null ? ` p.${p.page}` : ""}`;

/**
 * The document rollout's evidence: the pages the agent read with cited spans, submitted
 * figures and (for a wrong answer) gold figures marked; its report against the gold; and
 * each citation as the cited page's text around what it cites, linking to the page.
 */
export class DocumentsPanel {
  readonly el: HTMLElement;
  private readonly pages = h("div", { class: "doc-col pages" });
  private readonly report = h("div", { class: "doc-col report" });
  private pageCards: HTMLElement[] = [];

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {
    this.el = h("div", { class: "panel doc-cols" }, this.pages, this.report);
  }

  /** Scrolls the Pages column to a page read and flashes it. */
  private reveal(i: number): void {
    const card = this.pageCards[i];
    if (!card) return;
    card.scrollIntoView({ block: "start" });
    card.classList.remove("flash");
    void card.offsetWidth;
    card.classList.add("flash");
  }

  private pageLink(i: number, pages: DocPage[]): HTMLElement {
    const p = pages[i]!;
    return h(
      "a",
      {
        href: "#",
        class: "page-link",
        "data-page": i,
        onclick: (e: Event) => {
          e.preventDefault();
          this.reveal(i);
        },
      },
      `${pageName(p)} · step ${p.row}`,
    );
  }

  async show(): Promise<void> {
    const v: DocumentsView = await this.api.request("documents", { file: this.file });
    clear(this.pages);
    clear(this.report);
    this.pages.append(
      h("h3", {}, `Pages read (${v.pages.length})`),
      h(
        "div",
        { class: "legend meta-item" },
        h("mark", { class: "m-cite" }, "cited"),
        " ",
        h("mark", { class: "m-submitted" }, "submitted figure"),
        " ",
        h("mark", { class: "m-gold" }, "gold figure (wrong answers)"),
      ),
    );
    if (!v.pages.length) this.pages.appendChild(h("div", { class: "empty" }, "The agent read no pages."));
    this.pageCards = v.pages.map((p, i) => {
      const marks = p.marks ?? [];
      const n = (k: DocMark["kind"]) => marks.filter((m) => m.kind === k).length;
      const label = `${pageName(p)} · step ${p.row}${n("cite") ? ` · ${n("cite")} cited` : ""}${n("submitted") ? ` · ${n("submitted")} submitted` : ""}${n("gold") ? ` · gold here` : ""}`;
      const card = h(
        "div",
        { class: "page", id: `doc-page-${i}`, "data-page": i },
        h("div", { class: "ph" }, label),
        markedText(p.text, marks),
      );
      this.pages.appendChild(card);
      return card;
    });
    this.renderFields(v);
    this.report.appendChild(h("h3", {}, "Report as submitted"));
    this.report.appendChild(
      v.report === null ? h("div", { class: "empty" }, "No report submitted.") : h("pre", { class: "json" }, jsonText(v.report)),
    );
    this.renderCitations(v);
  }

  private goldCell(f: FieldResult, pages: DocPage[]): HTMLElement {
    if (f.passed !== false || f.gold_at === undefined) return h("td", {});
    if (!f.gold_at.length) return h("td", { class: "gold-where missing" }, "gold figure on no page the agent read");
    const td = h("td", { class: "gold-where" }, "gold on ");
    for (const [k, i] of f.gold_at.entries()) td.append(k ? ", " : "", this.pageLink(i, pages));
    return td;
  }

  private renderFields(v: DocumentsView): void {
    this.report.appendChild(h("h3", {}, "Submitted report vs gold"));
    if (!v.fields.length) {
      this.report.appendChild(h("div", { class: "empty" }, "No field results in the reward."));
      return;
    }
    const body = h("tbody");
    for (const f of v.fields)
      body.appendChild(
        h(
          "tr",
          { class: f.passed === false ? "fail-row" : "", "data-field": f.field },
          clipped(f.field, ""),
          clipped(f.got, "(missing from the report)", f.passed === false ? "fail" : ""),
          clipped(f.expected, "(not recorded)"),
          verdict(f),
          h("td", { class: "reason meta-item" }, f.reason ?? ""),
          this.goldCell(f, v.pages),
        ),
      );
    // Fixed column widths: a long value ellipsizes (its tooltip holds it) instead of squeezing the reason to a word per line.
    this.report.appendChild(
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "grid fields" },
          h(
            "colgroup",
            {},
            h("col", { class: "c-field" }),
            h("col", { class: "c-value" }),
            h("col", { class: "c-value" }),
            h("col", { class: "c-verdict" }),
            h("col", { class: "c-reason" }),
            h("col", { class: "c-where" }),
          ),
          h(
            "thead",
            {},
            h("tr", {}, ...["field", "submitted", "gold", "verdict", "reason", "where the gold is"].map((t) => h("th", {}, t))),
          ),
          body,
        ),
      ),
    );
  }

  private renderCitations(v: DocumentsView): void {
    this.report.appendChild(h("h3", {}, `Citations (${v.citations.length})`));
    if (!v.citations.length) this.report.appendChild(h("div", { class: "empty" }, "The report cites nothing."));
    for (const c of v.citations) {
      const where = `${visibleName(c.document)}${c.page !== undefined ? ` p.${c.page}` : ""}`;
      const card = h(
        "div",
        { class: "citation", "data-page-index": c.page_index ?? "" },
        h("div", { class: "ch" }, h("b", {}, where), h("span", { class: "meta-item" }, ` · cited at step ${c.row}`)),
      );
      const p = c.page_index === null ? undefined : v.pages[c.page_index];
      if (!p || c.page_index === null) {
        this.report.appendChild(this.neverRead(card, c, v.pages));
        continue;
      }
      // Which words of the page this citation is: two citations of one page otherwise show as two alike cards.
      if (c.span)
        card.querySelector(".ch b")!.after(h("span", { class: "cite-quote" }, ` · “${quoteOf(p.text.slice(c.span[0], c.span[1]))}”`));
      card.querySelector(".ch")!.append(" · ", this.pageLink(c.page_index, v.pages));
      // The excerpt: around the cited span, else around the first submitted or gold figure on the page, else the page's start.
      const marks = p.marks ?? [];
      const focus =
        c.span ??
        (() => {
          const m = marks.find((x) => x.kind === "submitted") ?? marks.find((x) => x.kind === "gold");
          return m ? ([m.start, m.end] as [number, number]) : null;
        })();
      const from = focus ? Math.max(0, focus[0] - 240) : 0;
      const to = focus ? Math.min(p.text.length, focus[1] + 240) : Math.min(p.text.length, 480);
      const pageMarks = marks.filter((m) => m.kind !== "cite" || (c.span && m.start === c.span[0] && m.end === c.span[1]));
      const excerpt = markedText(p.text, pageMarks, from, to, "div");
      if (from > 0) excerpt.prepend("…");
      if (to < p.text.length) excerpt.append("…");
      card.appendChild(excerpt);
      if (!c.span)
        card.appendChild(h("div", { class: "meta-item" }, "The citation names the whole page; the figures the report states are marked."));
      this.report.appendChild(card);
    }
  }

  /** A citation of a page the agent never read: flagged, with the search results where it saw the words, if any. */
  private neverRead(card: HTMLElement, c: DocumentsView["citations"][number], pages: DocPage[]): HTMLElement {
    card.classList.add("never-read");
    card.querySelector(".ch")!.append(" ", h("span", { class: "badge warn" }, "cited but never read"));
    card.appendChild(
      h(
        "div",
        { class: "missing" },
        `The agent did not read this page in the rollout; cited characters ${c.start}–${c.end}${c.text ? `: “${visibleName(c.text)}”` : ""}.`,
      ),
    );
    if (c.search_index !== null && pages[c.search_index])
      card.appendChild(
        h("div", { class: "meta-item" }, "Its words appeared only in search results: ", this.pageLink(c.search_index, pages)),
      );
    return card;
  }
}

/** A cited span for a card's title: one line, its controls visible, at most 80 characters. */
function quoteOf(text: string): string {
  const line = visibleBidi(text.replace(/\s+/g, " ").trim());
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

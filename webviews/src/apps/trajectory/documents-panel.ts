import { citedRanges } from "../../../../src/core/view/model/artifacts";
import type { HostApi } from "../../shared/api";
import { clear, h, jsonText } from "../../shared/dom";
import type { DocPage, DocumentsView } from "./protocol";

function pageText(page: DocPage, ranges: Array<[number, number]>): HTMLElement {
  const pre = h("pre", {});
  let at = 0;
  for (const [s, e] of ranges) {
    if (s > at) pre.appendChild(document.createTextNode(page.text.slice(at, s)));
    pre.appendChild(h("mark", { class: "cite" }, page.text.slice(s, e)));
    at = e;
  }
  if (at < page.text.length) pre.appendChild(document.createTextNode(page.text.slice(at)));
  return pre;
}

/** A value of the report or the gold, or a marked gap: absent is not the same as null. */
function valueCell(v: unknown, absent: string, cls = ""): HTMLElement {
  if (v === undefined) return h("td", { class: `missing ${cls}` }, absent);
  return h("td", { class: cls }, v === null ? "null" : typeof v === "string" ? v : (JSON.stringify(v) ?? String(v)));
}

/** The pages the agent read with its cited spans highlighted, beside its report and the gold fields. */
export class DocumentsPanel {
  readonly el: HTMLElement;
  private readonly pages = h("div", { class: "doc-col pages" });
  private readonly report = h("div", { class: "doc-col report" });

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {
    this.el = h("div", { class: "panel doc-cols" }, this.pages, this.report);
  }

  async show(): Promise<void> {
    const v: DocumentsView = await this.api.request("documents", { file: this.file });
    clear(this.pages);
    clear(this.report);
    this.pages.appendChild(h("h3", {}, `Pages read (${v.pages.length})`));
    if (!v.pages.length) this.pages.appendChild(h("div", { class: "empty" }, "The agent read no pages."));
    for (const p of v.pages) {
      const ranges = citedRanges(p, v.citations);
      const label = `${p.document ?? p.tool}${p.page !== null ? ` · page ${p.page}` : ""} · step ${p.row}${ranges.length ? ` · ${ranges.length} cited` : ""}`;
      this.pages.appendChild(h("div", { class: "page" }, h("div", { class: "ph" }, label), pageText(p, ranges)));
    }
    this.report.appendChild(h("h3", {}, "Submitted report vs gold"));
    if (v.fields.length) {
      this.report.appendChild(
        h(
          "table",
          { class: "grid fields" },
          h("thead", {}, h("tr", {}, h("th", {}, "field"), h("th", {}, "submitted"), h("th", {}, "gold"), h("th", {}, ""), h("th", {}, "reason"))),
          h(
            "tbody",
            {},
            ...v.fields.map((f) =>
              h("tr", { class: f.passed === false ? "fail-row" : "" }, h("td", {}, f.field), valueCell(f.got, "(missing from the report)", f.passed === false ? "fail" : ""), valueCell(f.expected, "(not recorded)"), h("td", { class: f.passed ? "pass" : f.passed === false ? "fail" : "" }, f.passed === null ? (f.score?.toFixed(2) ?? "–") : f.passed ? "✓" : "✗"), h("td", { class: "meta-item" }, f.reason ?? "")),
            ),
          ),
        ),
      );
    } else this.report.appendChild(h("div", { class: "empty" }, "No field results in the reward."));
    this.report.appendChild(h("h3", {}, "Report as submitted"));
    this.report.appendChild(v.report === null ? h("div", { class: "empty" }, "No report submitted.") : h("pre", { class: "json" }, jsonText(v.report)));
    this.report.appendChild(h("h3", {}, `Citations (${v.citations.length})`));
    for (const c of v.citations) this.report.appendChild(h("div", { class: "meta-item cite-line" }, `${c.document}${c.page !== undefined ? ` p.${c.page}` : ""} [${c.start}–${c.end}] `, h("b", {}, c.text ?? "")));
  }
}

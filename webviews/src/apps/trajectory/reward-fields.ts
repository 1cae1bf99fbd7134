import type { RewardEvent } from "../../../../src/core/schema/trajectory";
import { visibleName } from "../../../../src/core/view/model/visible-text";
import { fmtNum, h } from "../../shared/dom";
import type { FieldResult } from "./protocol";

/** Whether a reward component graded a report field by field (its details carry `fields`). */
export function gradesFields(c: RewardEvent["components"][number]): boolean {
  const d = c.details;
  return typeof d === "object" && d !== null && "fields" in d;
}

/** A value as one line of text: strings as they are, anything else as JSON. */
function valueText(v: unknown): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  return JSON.stringify(v) ?? String(v);
}

/** A cell that ellipsizes a long value on one line; the whole value is its tooltip. */
export function clipped(v: unknown, absent: string, cls = ""): HTMLElement {
  if (v === undefined) return h("td", { class: `clip missing ${cls}` }, absent);
  const text = visibleName(valueText(v));
  return h("td", { class: `clip ${cls}`, title: text }, text);
}

export function verdict(f: FieldResult): HTMLElement {
  const score = f.score === null ? "" : ` ${fmtNum(f.score)}`;
  if (f.passed === true) return h("td", { class: "pass verdict" }, `✓${score}`);
  if (f.passed === false) return h("td", { class: "fail verdict" }, `✗${score}`);
  return h("td", { class: "verdict" }, score.trim() || "–");
}

/**
 * One row per graded field of a component: field, expected, got, verdict and score,
 * reason. Fixed column widths so a long value ellipsizes instead of squeezing the
 * other columns to a word per line.
 */
export function fieldRows(fields: readonly FieldResult[]): HTMLElement {
  const body = h("tbody");
  for (const f of fields)
    body.appendChild(
      h(
        "tr",
        { class: f.passed === false ? "fail-row" : "", "data-field": f.field },
        clipped(f.field, ""),
        clipped(f.expected, "(not recorded)"),
        clipped(f.got, "(missing from the report)", f.passed === false ? "fail" : ""),
        verdict(f),
        h("td", { class: "reason" }, f.reason ?? ""),
      ),
    );
  return h(
    "table",
    { class: "grid field-rows" },
    h(
      "colgroup",
      {},
      h("col", { class: "c-field" }),
      h("col", { class: "c-value" }),
      h("col", { class: "c-value" }),
      h("col", { class: "c-verdict" }),
      h("col", { class: "c-reason" }),
    ),
    h("thead", {}, h("tr", {}, ...["field", "expected", "got", "verdict", "reason"].map((t) => h("th", {}, t)))),
    body,
  );
}

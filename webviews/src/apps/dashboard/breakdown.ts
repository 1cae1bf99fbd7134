import { fmtNum, h } from "../../shared/dom";
import type { Dashboard } from "./protocol";

type Summary = NonNullable<Dashboard["summary"]>;

const card = (title: string, cls: string, body: Node) => h("div", { class: `card ${cls}` }, h("h2", {}, title), body);

function grid(head: string[], numeric: boolean[], rows: Array<Array<string | number | null>>): HTMLTableElement {
  return h(
    "table",
    { class: "grid" },
    h("thead", {}, h("tr", {}, ...head.map((c, i) => h("th", numeric[i] ? { class: "num" } : {}, c)))),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          {},
          ...r.map((v, i) =>
            h("td", numeric[i] ? { class: "num" } : {}, typeof v === "number" && !Number.isInteger(v) ? fmtNum(v) : (v ?? "–")),
          ),
        ),
      ),
    ),
  );
}

/**
 * Where the run's reward went, from summary.json: each reward component's and each graded
 * field's mean, and the reasons rollouts fell short with their counts. Nothing while the
 * run has no summary yet, and no card for a part it does not have.
 */
export function breakdownCards(summary: Summary | null): HTMLElement[] {
  if (!summary) return [];
  const out: HTMLElement[] = [];
  const comps = summary.components ?? [];
  if (comps.length > 0) {
    out.push(
      card(
        "Reward components",
        "card-components",
        grid(
          ["component", "type", "n", "passed", "mean"],
          [false, false, true, true, true],
          comps.map((c) => [c.name, c.type, c.n, c.passed, c.mean]),
        ),
      ),
    );
  }
  const fields = summary.fields ?? [];
  if (fields.length > 0) {
    out.push(
      card(
        "Fields",
        "card-fields",
        grid(
          ["field", "component", "n", "passed", "mean"],
          [false, false, true, true, true],
          fields.map((f) => [f.field, f.component, f.n, f.passed, f.mean]),
        ),
      ),
    );
  }
  const failures = summary.failures ?? [];
  if (failures.length > 0) {
    // Reasons quote what the verifiers and the submitted code printed: text nodes only (h() makes them so).
    out.push(
      card(
        "Why rollouts fell short",
        "card-failures",
        grid(
          ["count", "reason", "tasks"],
          [true, false, false],
          failures.map((f) => [f.count, f.reason, f.tasks.join(", ")]),
        ),
      ),
    );
  }
  return out;
}

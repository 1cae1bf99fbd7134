import "./calibration.css";
import { clear, fmtNum, h } from "../../shared/dom";
import type { Agreement, CalibrationReport, Disagreement, Rate } from "../../../../src/core/schema/calibration";

const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);

/** "57/62 = 91.9%" and its 95 % interval on a second line. */
function rateBody(r: Rate): HTMLElement {
  return h(
    "div",
    { class: "cal-rate" },
    h("div", { class: "big" }, pct(r.rate)),
    h("div", { class: "meta-item" }, `${r.k} of ${r.n}`, r.n ? `  ·  95% CI ${pct(r.low)} – ${pct(r.high)}` : ""),
  );
}

const card = (title: string, cls: string, ...body: Array<Node | string | null>) =>
  h("div", { class: `card ${cls}` }, h("h2", {}, title), ...body);

function confusion(a: Agreement): HTMLTableElement {
  const cell = (n: number, kind: string) => h("td", { class: `num cal-${kind}`, "data-cell": kind }, n);
  return h(
    "table",
    { class: "grid cal-confusion" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "people ↓  verifier →"), h("th", { class: "num" }, "accept"), h("th", { class: "num" }, "reject")),
    ),
    h(
      "tbody",
      {},
      h("tr", {}, h("th", {}, "accept"), cell(a.both_accept, "agree"), cell(a.false_reject, "false-reject")),
      h("tr", {}, h("th", {}, "reject"), cell(a.false_accept, "false-accept"), cell(a.both_reject, "agree")),
    ),
  );
}

/** Component, field and group rows with their matrices, rates and κ. */
function breakdown(rows: Array<{ scope: string; name: string; a: Agreement }>): HTMLTableElement {
  const rate = (r: Rate) => (r.n ? `${r.k}/${r.n} = ${pct(r.rate)} [${pct(r.low)}, ${pct(r.high)}]` : "–");
  return h(
    "table",
    { class: "grid cal-breakdown" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["", "", "n", "both accept", "false reject", "false accept", "both reject", "false-accept rate", "false-reject rate", "κ"].map(
          (c, i) => h("th", i >= 2 && i <= 6 ? { class: "num" } : {}, c),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      ...rows.map(({ scope, name, a }) =>
        h(
          "tr",
          { "data-scope": scope },
          h("td", {}, scope),
          h("td", {}, name),
          ...[a.n, a.both_accept, a.false_reject, a.false_accept, a.both_reject].map((n) => h("td", { class: "num" }, n)),
          h("td", {}, rate(a.false_accept_rate)),
          h("td", {}, rate(a.false_reject_rate)),
          h("td", { class: "num" }, fmtNum(a.kappa, 3)),
        ),
      ),
    ),
  );
}

/** Every disagreement, filterable by kind; a row's link opens the rollout that graded it. */
function disagreements(list: Disagreement[], open: (file: string) => void): HTMLElement {
  const body = h("tbody", {});
  const render = (kind: string) => {
    clear(body);
    for (const d of list.filter((x) => !kind || x.kind === kind))
      body.append(
        h(
          "tr",
          { class: "cal-disagreement", "data-kind": d.kind, "data-line": d.line },
          h("td", { class: "num" }, d.line),
          h("td", {}, d.task),
          h("td", {}, h("span", { class: `badge ${d.kind === "false-accept" ? "bad" : "warn"}` }, d.kind)),
          h("td", {}, d.scope),
          h("td", { class: "num" }, fmtNum(d.reward)),
          h("td", { class: "cal-text" }, d.reason),
          h("td", { class: "cal-text" }, d.answer),
          h(
            "td",
            {},
            h(
              "a",
              {
                href: "#",
                class: "traj-link",
                click: (e: Event) => {
                  e.preventDefault();
                  open(d.rollout);
                },
              },
              "rollout",
            ),
          ),
        ),
      );
  };
  const select = h(
    "select",
    { "aria-label": "disagreement kind", change: (e: Event) => render((e.target as HTMLSelectElement).value) },
    h("option", { value: "" }, `all (${list.length})`),
    ...(["false-accept", "false-reject"] as const).map((k) =>
      h("option", { value: k }, `${k} (${list.filter((d) => d.kind === k).length})`),
    ),
  );
  render("");
  const head = ["line", "task", "kind", "where", "reward", "verifier's reason", "answer", ""];
  return h(
    "div",
    { class: "cal-disagreements" },
    select,
    h("table", { class: "grid" }, h("thead", {}, h("tr", {}, ...head.map((c) => h("th", {}, c)))), body),
  );
}

/** The calibration of a run made by `rlenv calibrate`: how the reward agrees with the people who labelled the answers. */
export function calibrationView(c: CalibrationReport, open: (file: string) => void): HTMLElement {
  const o = c.overall;
  const rows = [
    { scope: "reward", name: "total", a: o },
    ...c.components.map((x) => ({ scope: "component", name: `${x.name} (${x.type})`, a: x })),
    ...c.fields.map((x) => ({ scope: "field", name: `${x.component}.${x.field}`, a: x })),
    ...c.groups.map((x) => ({ scope: "group", name: x.group, a: x })),
  ];
  return h(
    "div",
    { class: "calibration" },
    h(
      "div",
      { class: "meta-item" },
      `${c.counts.lines} labels from ${c.labels}: ${c.counts.graded} graded, ${c.counts.not_graded} not graded, ${c.counts.bad} bad · `,
      `answers: ${c.answers === "whole" ? "the whole reply" : "the final sentence"} · the verifier accepts at reward ≥ ${c.accept.reward_at}`,
    ),
    ...c.bars.missed.map((m) => h("div", { class: "error-banner" }, `bar missed: ${m}`)),
    h(
      "div",
      { class: "cards" },
      card(
        "False accepts",
        "cal-false-accept",
        rateBody(o.false_accept_rate),
        h("div", { class: "meta-item" }, "the reward accepts what people reject"),
      ),
      card(
        "False rejects",
        "cal-false-reject",
        rateBody(o.false_reject_rate),
        h("div", { class: "meta-item" }, "the reward rejects what people accept"),
      ),
      card(
        "Cohen's kappa (κ)",
        "cal-kappa",
        h("div", { class: "big" }, fmtNum(o.kappa, 3)),
        h("div", { class: "meta-item" }, `agreement ${pct(o.agreement)}`),
      ),
      card("Confusion matrix", "cal-matrix", confusion(o)),
    ),
    breakdown(rows),
    h("h3", {}, `Disagreements (${c.disagreements.length})`),
    disagreements(c.disagreements, open),
    c.problems.length
      ? h(
          "details",
          {},
          h("summary", {}, `${c.problems.length} bad labels`),
          ...c.problems.map((p) => h("div", {}, `${p.file}:${p.line}: ${p.field}: ${p.message}`)),
        )
      : null,
    c.not_graded.length
      ? h(
          "details",
          {},
          h("summary", {}, `${c.not_graded.length} not graded`),
          ...c.not_graded.map((n) => h("div", {}, `line ${n.line} (${n.task}): ${n.reason}`)),
        )
      : null,
  );
}

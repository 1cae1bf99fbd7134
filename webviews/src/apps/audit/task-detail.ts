import { fmtNum, h, jsonText } from "../../shared/dom";
import type { FlakinessResult, Misjudged, ParityResult, ProbeOutcome, Survivor, TaskAudit } from "./protocol";
import { visibleBidi, visibleName } from "../../../../src/core/view/model/visible-text";

/** Opens a trajectory the report names (null: not found under the served folder). */
export type OpenTrajectory = (original: string) => HTMLElement;

/** Characters of a diff line shown before it is cut (a minified file's one line can hold megabytes). */
export const DIFF_LINE_SHOWN = 400;

/** A diff line's text: bidi controls made visible; a long line cut with a control that shows the rest, wrapped. */
function diffLine(line: string, kind: string): HTMLElement {
  const el = h("span", { class: `dl ${kind}` });
  if (line.length <= DIFF_LINE_SHOWN) {
    el.append(visibleBidi(line) || " ");
    return el;
  }
  const more = h(
    "button",
    {
      class: "link line-more",
      title: "show the whole line, wrapped",
      onclick: (e: Event) => {
        e.stopPropagation();
        el.classList.add("whole");
        el.replaceChildren(visibleBidi(line));
      },
    },
    `… +${(line.length - DIFF_LINE_SHOWN).toLocaleString("en-US")} characters`,
  );
  el.append(visibleBidi(line.slice(0, DIFF_LINE_SHOWN)), more);
  return el;
}

/** A unified diff as lines coloured by their kind; every line a text node. */
export function diffBlock(text: string): HTMLElement {
  const pre = h("pre", { class: "audit-diff" });
  for (const line of text.split("\n")) {
    const kind = /^(\+\+\+|---)( |$)/.test(line)
      ? "file"
      : line.startsWith("@@")
        ? "hunk"
        : line.startsWith("+")
          ? "add"
          : line.startsWith("-")
            ? "del"
            : "ctx";
    pre.appendChild(diffLine(line, kind));
  }
  return pre;
}

const rewards = (r: Array<number | null>) => r.map((x) => (x === null ? "not judged" : fmtNum(x))).join(", ");

function flakiness(f: FlakinessResult, open: OpenTrajectory): HTMLElement {
  return h(
    "div",
    { class: `audit-line ${f.flaky ? "fail" : ""}`, "data-backend": f.backend },
    h("b", {}, f.backend),
    `: oracle rewards ${rewards(f.rewards)} — `,
    f.flaky ? h("span", { class: "badge bad" }, "flaky") : h("span", { class: "badge ok" }, "stable"),
    f.not_judged ? h("span", { class: "meta-item" }, ` ${f.not_judged} not judged`) : null,
    h("span", { class: "traj-links" }, ...f.trajectories.map((t) => open(t))),
  );
}

function parity(p: ParityResult | null): HTMLElement {
  if (!p) return h("div", { class: "audit-line meta-item" }, "backend parity not checked (one backend)");
  const [a, b] = p.backends;
  const d = p.first_difference;
  return h(
    "div",
    { class: `audit-line ${p.agree === false ? "fail" : ""}` },
    `${a} vs ${b}: `,
    p.agree === null
      ? h("span", { class: "badge warn" }, "one side not judged")
      : p.agree
        ? h("span", { class: "badge ok" }, "agree")
        : h("span", { class: "badge bad" }, "differ"),
    d ? ` first difference: component ${visibleName(d.component)}: ${fmtNum(d.a)} vs ${fmtNum(d.b)}` : null,
  );
}

function survivor(s: Survivor, open: OpenTrajectory): HTMLElement {
  return h(
    "div",
    { class: "survivor", "data-id": s.id },
    h(
      "div",
      { class: "survivor-head" },
      h("b", {}, visibleName(s.id)),
      h("span", { class: "badge warn" }, s.operator),
      h("span", {}, visibleBidi(s.description)),
      h("span", { class: "meta-item" }, `reward ${fmtNum(s.reward)}`),
      open(s.trajectory),
    ),
    diffBlock(s.diff),
  );
}

function misjudged(m: Misjudged, open: OpenTrajectory): HTMLElement {
  return h(
    "div",
    { class: "survivor misjudged", "data-id": m.id },
    h(
      "div",
      { class: "survivor-head" },
      h("b", {}, visibleName(m.id)),
      h("span", {}, visibleBidi(m.description)),
      h("span", { class: "meta-item" }, `reward ${fmtNum(m.reward)}, should be ${m.expected}`),
      open(m.trajectory),
    ),
    h("pre", { class: "json" }, jsonText(m.answer)),
  );
}

function probes(list: ProbeOutcome[], open: OpenTrajectory): HTMLElement {
  const sorted = [...list].sort((a, b) => Number(b.status === "finding") - Number(a.status === "finding"));
  return h(
    "table",
    { class: "grid audit-probes" },
    h("thead", {}, h("tr", {}, ...["probe", "backend", "result", "reward", "reason", "trajectory"].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      ...sorted.map((p) =>
        h(
          "tr",
          { class: `probe-${p.status}`, "data-probe": p.probe },
          h("td", {}, visibleName(p.probe)),
          h("td", {}, p.backend),
          h("td", {}, h("span", { class: `badge ${p.status === "finding" ? "bad" : p.status === "rejected" ? "ok" : "warn"}` }, p.status)),
          h("td", { class: "num" }, fmtNum(p.reward)),
          h("td", { class: "reason" }, visibleBidi(p.reason ?? "")),
          h("td", {}, open(p.trajectory)),
        ),
      ),
    ),
  );
}

const section = (title: string, ...body: Array<Node | null>) => h("div", { class: "audit-section" }, h("h4", {}, title), ...body);

/** Everything the audit found for one task: problems, flakiness, parity, mutants and their survivors, probes. */
export function taskDetail(t: TaskAudit, open: OpenTrajectory): HTMLElement {
  const m = t.mutation;
  return h(
    "div",
    { class: "task-detail", "data-task": t.id },
    t.not_judged ? h("div", { class: "audit-line meta-item" }, `Not judged here: ${t.not_judged}`) : null,
    t.problems.length ? h("ul", { class: "problems" }, ...t.problems.map((p) => h("li", { class: "fail" }, visibleBidi(p)))) : null,
    section(
      "Flakiness",
      ...(t.flakiness.length ? t.flakiness.map((f) => flakiness(f, open)) : [h("div", { class: "meta-item" }, "not run")]),
    ),
    section("Backend parity", parity(t.parity)),
    section(
      "Mutation testing",
      m
        ? h(
            "div",
            { class: "audit-line" },
            `${m.kind} mutants: score `,
            h("b", { class: "mutation-score" }, m.score === null ? "–" : fmtNum(m.score)),
            ` — ${m.killed} killed, ${m.survived} survived, ${m.equivalent} equivalent, ${m.not_judged} not judged of ${m.mutants}; oracle reward ${fmtNum(m.reference_reward)}`,
            m.note ? h("div", { class: "meta-item note" }, visibleBidi(m.note)) : null,
          )
        : h("div", { class: "meta-item" }, "not run"),
      ...(m?.survivors.length ? [h("h5", {}, `Survivors (${m.survivors.length}): the tests' blind spots`)] : []),
      ...(m?.survivors ?? []).map((s) => survivor(s, open)),
      ...(m?.rejected_correct.length ? [h("h5", {}, `Correct answers the verifier rejected (${m.rejected_correct.length})`)] : []),
      ...(m?.rejected_correct ?? []).map((x) => misjudged(x, open)),
    ),
    section(
      `Hack probes (${t.probes.filter((p) => p.status === "finding").length} of ${t.probes.length} scored above 0)`,
      t.probes.length ? probes(t.probes, open) : h("div", { class: "meta-item" }, "none applied"),
    ),
  );
}

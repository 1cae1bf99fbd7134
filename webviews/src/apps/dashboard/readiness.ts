import { fmtNum, h } from "../../shared/dom";
import type { Dashboard } from "./protocol";
import { VirtualTable } from "./virtual-table";

type Report = NonNullable<Dashboard["readiness"]>;

const pct = (x: number | null | undefined) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);
const card = (title: string, cls: string, ...body: Array<Node | string | null>) =>
  h("div", { class: `card ${cls}` }, h("h2", {}, title), ...body.filter((b): b is Node | string => b !== null));
const row = (label: string, value: string) => h("div", { class: "meta-item" }, `${label} `, h("b", {}, value));

function table(head: string[], rows: Array<Array<string | number>>, numeric: (i: number) => boolean): HTMLTableElement {
  return h(
    "table",
    { class: "grid" },
    h("thead", {}, h("tr", {}, ...head.map((c, i) => h("th", numeric(i) ? { class: "num" } : {}, c)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((v, i) => h("td", numeric(i) ? { class: "num" } : {}, String(v)))))),
  );
}

/** Every task by band, one line each; only the lines in view are drawn (a run may have thousands of tasks). */
function tasksTable(tasks: Report["tasks"]): HTMLElement {
  const numeric = (i: number) => i >= 2 && i <= 4;
  const head = h(
    "thead",
    {},
    h("tr", {}, ...["task", "band", "passed", "mean", "std", ""].map((c, i) => h("th", numeric(i) ? { class: "num" } : {}, c))),
  );
  // The layout is fixed (widths hold as rows scroll by): the task names get the room.
  head.querySelector("th")?.style.setProperty("width", "30%");
  const view = new VirtualTable(
    "readiness-tasks",
    head,
    (k) => {
      const t = tasks[k]!;
      const cells = [
        t.task,
        t.band,
        `${t.passed}/${t.n}`,
        fmtNum(t.mean_reward, 3),
        fmtNum(t.std_reward, 3),
        t.zero_variance ? "zero variance" : "",
      ];
      return h("tr", {}, ...cells.map((v, i) => h("td", numeric(i) ? { class: "num", title: v } : { title: v }, v)));
    },
    "360px",
  );
  void view.setCount(tasks.length);
  return view.el;
}

/** A bar of shares (policy, sandbox, verify, queue), each part's width its share of rollout time. */
function timeBar(t: Report["time"]): HTMLElement {
  const parts: Array<[string, number]> = [
    ["policy", t.policy_ms],
    ["sandbox", t.sandbox_ms],
    ["verify", t.verify_ms],
    ["queue", t.queue_ms],
  ];
  const total = Math.max(1e-9, t.total_ms);
  return h(
    "div",
    {},
    h(
      "div",
      { class: "time-bar" },
      ...parts.map(([name, ms]) => {
        const part = h("span", { class: `time-${name}`, title: `${name} ${pct(ms / total)}` });
        // Through the CSSOM: the webview's CSP refuses style attributes.
        part.style.width = `${((100 * ms) / total).toFixed(2)}%`;
        return part;
      }),
    ),
    h("div", {}, ...parts.map(([name, ms]) => h("span", { class: `time-key time-${name}-key` }, `${name} ${pct(ms / total)}`))),
  );
}

/**
 * The readiness panel: is this task set worth training on (pass@k and pass^k, zero-variance
 * groups, difficulty bands, what decides the reward) and where the compute went. Task ids and
 * reasons are environment or model text: they go in as text nodes only.
 */
export function readinessCards(r: Report | null): HTMLElement[] {
  if (!r) return [h("div", { class: "meta-item" }, "No readiness report: the run has no run.json yet.")];
  const z = r.zero_variance;
  const shownKs = r.ks.filter((k) => k === r.ks.length || (k & (k - 1)) === 0);
  const bands = card(
    "Learning signal",
    "card-readiness-signal",
    h("div", { class: "big" }, pct(z.fraction)),
    h("div", {}, `of ${z.groups} groups have zero variance, costing ${z.rollouts} rollouts (${pct(z.rollouts_fraction)})`),
    h(
      "div",
      { class: "bands" },
      h("span", { class: "badge completed", "data-band": "always" }, `always ${r.bands.always}`),
      h("span", { class: "badge running", "data-band": "learnable" }, `learnable ${r.bands.learnable}`),
      h("span", { class: "badge bad", "data-band": "never" }, `never ${r.bands.never}`),
    ),
    row("infra errors (not scored)", String(r.rollouts.infra_errors)),
  );
  const passes = card(
    "pass@k · pass^k",
    "card-readiness-pass",
    table(
      ["k", "pass@k", "pass^k"],
      shownKs.map((k) => [k, fmtNum(r.pass_at_k[String(k)], 3), fmtNum(r.pass_hat_k[String(k)], 3)]),
      () => true,
    ),
    row("reward", `${fmtNum(r.reward.mean, 3)} ± ${fmtNum(r.reward.std, 3)}`),
  );
  const components =
    r.components.length > 0
      ? card(
          "What decides the reward",
          "card-readiness-components",
          table(
            ["component", "mean", "decides"],
            r.components.map((c) => [c.name, fmtNum(c.mean, 3), `${c.decides} (${pct(c.decides_fraction)})`]),
            (i) => i > 0,
          ),
        )
      : null;
  const time = card(
    "Where rollout time went",
    "card-readiness-time",
    timeBar(r.time),
    row("policy utilisation", pct(r.utilisation?.policy)),
    row("truncated", `${r.truncation.rollouts} (${pct(r.truncation.rate)})`),
    row(
      "turns / tokens per rollout",
      `${fmtNum(r.per_rollout.turns.mean, 1)} / ${fmtNum(r.per_rollout.prompt_tokens.mean, 0)} in, ${fmtNum(r.per_rollout.completion_tokens.mean, 0)} out`,
    ),
    r.concurrency.length > 0
      ? row("adaptive concurrency", `${r.concurrency.length} decisions, now ${r.concurrency[r.concurrency.length - 1]!.limit}`)
      : null,
  );
  const learnable = r.tasks.filter((t) => t.band === "learnable");
  const tasks = card(
    "Tasks by band",
    "card-readiness-tasks",
    tasksTable(r.tasks),
    h("div", { class: "meta-item" }, `${learnable.length} learnable: rlenv report RUN --emit-tasks FILE --band learnable`),
  );
  return [bands, passes, time, ...(components ? [components] : []), tasks];
}

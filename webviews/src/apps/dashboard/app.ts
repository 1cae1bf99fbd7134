import type { HostApi } from "../../shared/api";
import { append, clear, fmtNum, h } from "../../shared/dom";
import { LIVE_POLL, pollWhileLive } from "../../shared/live-poll";
import { auditCell, auditNote } from "./audit-verdict";
import { breakdownCards } from "./breakdown";
import { calibrationView } from "./calibration";
import { barChart, type LimitStep, utilisationChart } from "./charts";
import type { Dashboard, InitContext } from "./protocol";
import { readinessCards } from "./readiness";
import { parseDashboard } from "./run-reply";
import { SearchPanel } from "./search";
import { RolloutTable, type TableState } from "./table";
import { VirtualTable } from "./virtual-table";

/** Adaptive concurrency's decisions on the utilisation chart's clock (the run's start plus each decision's offset). */
function limitSteps(d: Dashboard): LimitStep[] {
  const start = d.record ? Date.parse(d.record.created) : Number.NaN;
  if (!d.readiness || Number.isNaN(start)) return [];
  return d.readiness.concurrency.map((c) => ({ t: start + c.t_ms, limit: c.limit, reason: c.reason }));
}

/** The run dashboard: summary cards and charts, then the rollout table. */
export class DashboardApp {
  private readonly header = h("header", { class: "top" });
  private readonly cards = h("div", { class: "cards" });
  private readonly readiness = h("div", { class: "cards readiness" });
  /** `rlenv calibrate`'s figures, when the run is a calibration. */
  private readonly calibration = h("section", { class: "calibration-section" });
  private readonly table: RolloutTable;
  private data: Dashboard | null = null;
  private readonly search: SearchPanel;

  constructor(
    private readonly api: HostApi,
    private readonly ctx: InitContext,
    snapshot: Record<string, unknown> | null,
    private readonly mount: HTMLElement,
  ) {
    const saved = (snapshot?.table ?? {}) as Partial<TableState>;
    this.table = new RolloutTable(
      { ...saved, sort: saved.sort ?? "id", desc: saved.desc ?? false, filter: saved.filter ?? "", status: saved.status ?? "" },
      (q) => api.request("rolloutPage", { dir: ctx.target, ...q }),
      (file, compare, more) => api.open("trajectory", file, compare, more),
      (state) => api.saveState({ table: state }),
    );
    this.search = new SearchPanel(api, ctx.target, (file, row) => api.open("trajectory", file, undefined, undefined, row));
    this.table.onFilter = (where) => this.search.setWhere(where);
  }

  async start(): Promise<void> {
    clear(this.mount);
    this.mount.append(
      this.header,
      h(
        "div",
        { class: "dash" },
        this.calibration,
        this.cards,
        h("h2", { class: "section" }, "Readiness"),
        this.readiness,
        h("h2", { class: "section" }, "Search"),
        this.search.el,
        h("h2", { class: "section" }, "Rollouts"),
        this.table.el,
      ),
    );
    await this.refresh();
    const running = () => this.data?.record?.status === "running" || (this.data?.statuses.some(([s]) => s === "running") ?? false);
    if (running()) pollWhileLive(() => this.refresh(), running, { ...LIVE_POLL, everyMs: 2000 });
  }

  private async refresh(): Promise<void> {
    // On opening, both at once: the server builds the run's table once for the two (a page waits for
    // the build under way). A live run's refresh asks for the rows once the new build is done.
    const rows = this.data === null ? this.table.reload(true) : null;
    this.data = await parseDashboard(await this.api.requestUnparsed("run", { dir: this.ctx.target }));
    await this.render(this.data);
    this.table.setChoices(
      this.data.statuses.map(([s]) => s),
      this.data.metaKeys,
    );
    await (rows ?? this.table.reload());
  }

  /** Draws the run's parts a few at a time, giving the page back between them (each is a task of its own). */
  private async render(d: Dashboard): Promise<void> {
    const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
    clear(this.header);
    append(this.header, ...runHeader(d));
    clear(this.cards);
    this.cards.append(...summaryCards(d));
    await nextTask();
    clear(this.calibration);
    if (d.calibration)
      this.calibration.append(
        h("h2", { class: "section" }, "Calibration against human labels"),
        calibrationView(d.calibration, (file) => this.api.open("trajectory", file)),
      );
    clear(this.readiness);
    this.readiness.append(...readinessCards(d.readiness));
    await nextTask();
    this.cards.appendChild(passAtKCard(d));
  }
}

/** The run's title line: id, environment, policy, status, when, the audit's note, and its problems. */
function runHeader(d: Dashboard): Array<Node | null> {
  const rec = d.record;
  const item = (label: string, value: string) => h("span", { class: "meta-item" }, `${label} `, h("b", {}, value));
  return [
    h("h1", {}, rec ? `Run ${rec.id}` : `Run ${d.dir}`),
    rec ? item("env", `${rec.env.name} (${rec.env.domain})`) : null,
    rec ? item("policy", `${rec.config.policy.kind}${rec.config.policy.model ? ` ${rec.config.policy.model}` : ""}`) : null,
    rec
      ? h("span", { class: `badge ${rec.status === "completed" ? "completed" : rec.status === "running" ? "running" : "bad"}` }, rec.status)
      : null,
    rec ? item("created", new Date(rec.created).toLocaleString()) : null,
    auditNote(d.audit),
    ...d.problems.map((p) => h("div", { class: "error-banner" }, p)),
  ];
}

/** A card: its title and body. */
function card(title: string, cls: string, ...body: Array<Node | string | null>): HTMLElement {
  const c = h("div", { class: `card ${cls}` }, h("h2", {}, title));
  append(c, ...body);
  return c;
}

/** The run's cards: rollouts by status, reward and duration histograms, utilisation, the reward's breakdown. */
function summaryCards(d: Dashboard): HTMLElement[] {
  const statuses = d.statuses;
  return [
    card(
      "Rollouts",
      "card-status",
      h("div", { class: "big" }, String(d.rolloutCount)),
      h("div", {}, ...statuses.map(([s, n]) => h("span", { class: `badge ${s}`, "data-status": s }, `${s} ${n}`))),
      h("div", { class: "meta-item" }, "mean reward ", h("b", { class: "mean-reward" }, fmtNum(d.meanReward))),
      d.policyBusy !== null
        ? h("div", { class: "meta-item" }, "policy busy ", h("b", {}, `${Math.round(d.policyBusy * 100)}%`), " of wall time")
        : null,
    ),
    card(
      "Reward histogram",
      "card-rewards",
      barChart(d.rewardHistogram, (b) => b.from.toFixed(1)),
    ),
    card(
      "Durations (s)",
      "card-durations",
      barChart(d.durationHistogram, (b) => b.from.toFixed(1)),
    ),
    card(
      "Utilisation over time",
      "card-util",
      utilisationChart(d.utilisation, limitSteps(d)),
      h(
        "div",
        { class: "meta-item" },
        `— policy requests in flight   - - rollouts running${d.readiness?.concurrency.length ? "   ▔ adaptive concurrency limit" : ""}`,
      ),
    ),
    ...breakdownCards(d.summary),
  ];
}

/** pass@k per task (every k any task has), with the audit's verdict beside each task when there is one; only the rows in view are drawn. */
function passAtKCard(d: Dashboard): HTMLElement {
  const ks = [...new Set(d.perTask.flatMap((t) => Object.keys(t.pass_at_k)))].sort((a, b) => Number(a) - Number(b));
  const head = h(
    "thead",
    {},
    h(
      "tr",
      {},
      h("th", {}, "task"),
      h("th", { class: "num" }, "n"),
      h("th", { class: "num" }, "passed"),
      h("th", { class: "num" }, "mean"),
      ...ks.map((k) => h("th", { class: "num" }, `pass@${k}`)),
      d.audit ? h("th", { title: d.audit.file }, "audit") : null,
    ),
  );
  // The layout is fixed (widths hold as rows scroll by). Each number column is as wide as its header
  // (pass@16, say) or its widest value, whichever is more; the task names get the rest of the room.
  const cells = [...head.querySelectorAll("th")];
  for (const th of cells.slice(1)) {
    // The audit's cells hold a badge ("not-judged" at most); a number fits in five characters (0.667, 1,000).
    const chars = th.classList.contains("num") ? Math.max((th.textContent ?? "").length, 5) + 1 : 12;
    th.style.setProperty("width", `calc(${chars}ch + 16px)`);
  }
  const table = new VirtualTable(
    "passk",
    head,
    (i) => {
      const t = d.perTask[i]!;
      return h(
        "tr",
        {},
        h("td", { title: t.task }, t.task),
        h("td", { class: "num" }, t.n),
        h("td", { class: "num" }, t.passed),
        h("td", { class: "num" }, fmtNum(t.mean_reward)),
        ...ks.map((k) => h("td", { class: "num" }, fmtNum(t.pass_at_k[k]))),
        d.audit ? auditCell(d.audit, t.task) : null,
      );
    },
    "360px",
  );
  void table.setCount(d.perTask.length);
  return card("pass@k per task", "card-passk", table.el);
}

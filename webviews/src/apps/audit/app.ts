import type { HostApi } from "../../shared/api";
import { append, clear, fmtNum, h } from "../../shared/dom";
import type { AuditView, EnvironmentAudit, InitContext, TaskAudit } from "./protocol";
import { type OpenTrajectory, taskDetail } from "./task-detail";
import { visibleBidi, visibleName } from "../../../../src/core/view/model/visible-text";

type Shown = "all" | "failed" | "not-judged" | "passed";

const verdictOf = (t: TaskAudit): Exclude<Shown, "all"> => (t.not_judged ? "not-judged" : t.ok ? "passed" : "failed");
const verdictBadge = (v: string) => h("span", { class: `badge verdict ${v === "passed" ? "ok" : v === "failed" ? "bad" : "warn"}` }, v);

/**
 * The audit report (`rlenv audit`'s audit.json): the overall verdict, then per environment a table
 * of tasks (flaky, parity, mutation score, survivors, probe findings) whose rows open the task's
 * evidence: each survivor's diff, each finding's trajectory one click away.
 */
export class AuditApp {
  private view: AuditView | null = null;
  private links = new Map<string, string | null>();
  private filter: string;
  private shown: Shown;
  private readonly open = new Set<string>();

  constructor(
    private readonly api: HostApi,
    private readonly ctx: InitContext,
    snapshot: Record<string, unknown> | null,
    private readonly mount: HTMLElement,
  ) {
    this.filter = typeof snapshot?.filter === "string" ? snapshot.filter : "";
    this.shown = (["all", "failed", "not-judged", "passed"] as const).find((s) => s === snapshot?.shown) ?? "all";
    if (Array.isArray(snapshot?.open)) for (const k of snapshot.open) if (typeof k === "string") this.open.add(k);
  }

  async start(): Promise<void> {
    this.view = await this.api.request("audit", { file: this.ctx.target });
    this.links = new Map(this.view.links);
    // First visit: the first failing task is open, so its evidence is on screen.
    if (this.open.size === 0) {
      for (const env of this.view.report.environments) {
        const bad = env.tasks.find((t) => !t.ok && !t.not_judged);
        if (bad) {
          this.open.add(`${env.name}\u0000${bad.id}`);
          break;
        }
      }
    }
    this.render();
  }

  private save(): void {
    this.api.saveState({ filter: this.filter, shown: this.shown, open: [...this.open] });
  }

  private readonly openTrajectory: OpenTrajectory = (original) => {
    // A probe or rerun judged in the audit's screen has no rollout of its own, so nothing to open.
    if (original === "") return h("span", { class: "meta-item traj-none", title: "judged in the audit's screen" }, "screened, no rollout");
    const rel = this.links.get(original) ?? null;
    if (rel === null) return h("span", { class: "meta-item traj-missing", title: original }, "trajectory not found beside the report");
    return h(
      "button",
      { class: "link traj-link", title: rel, "data-file": rel, onclick: () => this.api.open("trajectory", rel) },
      "open trajectory",
    );
  };

  private render(): void {
    const v = this.view;
    if (!v) return;
    const r = v.report;
    clear(this.mount);
    const item = (label: string, value: string) => h("span", { class: "meta-item" }, `${label} `, h("b", {}, value));
    const header = h(
      "header",
      { class: "top" },
      h("h1", {}, "Audit report"),
      verdictBadge(r.ok ? "passed" : "failed"),
      item("created", new Date(r.created).toLocaleString()),
      item("oracle runs", String(r.options.runs)),
      item("mutants", `≤ ${r.options.mutants}`),
      item("seed", String(r.options.seed)),
      item("backends", r.options.backends.join(", ") || "–"),
      item("probes", String(r.options.probes.length)),
      h("span", { class: "meta-item" }, visibleName(v.file)),
    );
    const filterInput = h("input", { type: "search", placeholder: "filter tasks", "aria-label": "filter tasks", value: this.filter });
    const select = h("select", { "aria-label": "verdict" });
    for (const s of ["all", "failed", "not-judged", "passed"] as const)
      select.appendChild(h("option", { value: s, selected: s === this.shown }, s === "all" ? "all verdicts" : s));
    const envs = h("div", { class: "audit-envs" });
    const draw = () => {
      clear(envs);
      for (const env of r.environments) envs.appendChild(this.environment(env));
    };
    filterInput.addEventListener("input", () => {
      this.filter = filterInput.value;
      this.save();
      draw();
    });
    select.addEventListener("change", () => {
      this.shown = select.value as Shown;
      this.save();
      draw();
    });
    draw();
    append(
      this.mount,
      h(
        "div",
        { class: "audit" },
        header,
        r.environments.length === 0 ? h("div", { class: "error-banner" }, "The report holds no environment (none loaded).") : null,
        h("div", { class: "toolbar" }, filterInput, select),
        envs,
      ),
    );
  }

  private environment(env: EnvironmentAudit): HTMLElement {
    const f = this.filter.trim().toLowerCase();
    const tasks = env.tasks.filter((t) => (this.shown === "all" || verdictOf(t) === this.shown) && (!f || t.id.toLowerCase().includes(f)));
    const tbody = h("tbody");
    for (const t of tasks) tbody.append(...this.taskRows(env, t));
    return h(
      "section",
      { class: "env-audit", "data-env": env.name },
      ...envHeading(env),
      env.notes.length ? h("ul", { class: "notes meta-item" }, ...env.notes.map((n) => h("li", {}, visibleBidi(n)))) : null,
      h(
        "table",
        { class: "grid audit-tasks" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["task", "verdict", "flaky", "parity", "mutation score", "survivors", "probe findings", "problems"].map((c) =>
              h("th", {}, c),
            ),
          ),
        ),
        tbody,
      ),
      tasks.length === 0 ? h("div", { class: "empty" }, "No task matches.") : null,
    );
  }

  /** A task's row, which opens and closes its detail row below it (kept open across reloads). */
  private taskRows(env: EnvironmentAudit, t: TaskAudit): [HTMLElement, HTMLElement] {
    const key = `${env.name}\u0000${t.id}`;
    const detail = h("tr", { class: "task-detail-row" }, h("td", { colspan: 8 }));
    const fill = () => {
      const td = detail.firstChild as HTMLElement;
      clear(td);
      if (this.open.has(key)) td.appendChild(taskDetail(t, this.openTrajectory));
      detail.hidden = !this.open.has(key);
      row.setAttribute("aria-expanded", this.open.has(key) ? "true" : "false");
    };
    const row = h(
      "tr",
      {
        class: `clickable task-row verdict-${verdictOf(t)}`,
        "data-task": t.id,
        onclick: () => {
          if (this.open.has(key)) this.open.delete(key);
          else this.open.add(key);
          this.save();
          fill();
        },
      },
      ...taskCells(env, t),
    );
    fill();
    return [row, detail];
  }
}

/** A task's cells: name, verdict, flakiness, parity, mutation score, survivors, probe findings, first problem. */
function taskCells(env: EnvironmentAudit, t: TaskAudit): HTMLElement[] {
  const findings = t.probes.filter((p) => p.status === "finding").length;
  const flaky = t.flakiness.some((x) => x.flaky);
  const m = t.mutation;
  return [
    h("td", {}, h("span", { class: "twisty" }, "›"), " ", visibleName(t.id)),
    h("td", {}, verdictBadge(verdictOf(t))),
    h("td", { class: flaky ? "fail" : "" }, t.flakiness.length ? (flaky ? "flaky" : "stable") : "–"),
    h(
      "td",
      { class: t.parity?.agree === false ? "fail" : "" },
      t.parity
        ? t.parity.agree === null
          ? "not judged"
          : t.parity.agree
            ? "agree"
            : `differ: ${t.parity.first_difference?.component ?? "?"}`
        : "–",
    ),
    h(
      "td",
      { class: `num ${m?.score !== null && m?.score !== undefined && m.score < env.min_mutation_score ? "fail" : ""}` },
      m ? (m.score === null ? "–" : fmtNum(m.score)) : "–",
    ),
    h("td", { class: `num ${m?.survived ? "fail" : ""}` }, m ? String(m.survived + m.rejected_correct.length) : "–"),
    h("td", { class: `num ${findings ? "fail" : ""}` }, `${findings} / ${t.probes.length}`),
    h(
      "td",
      { class: "problems-cell" },
      visibleBidi(t.not_judged ?? t.problems[0] ?? ""),
      t.problems.length > 1 ? ` (+${t.problems.length - 1})` : "",
    ),
  ];
}

/** An environment's title and summary line: its verdict, tasks by verdict, mean mutation score, folder. */
function envHeading(env: EnvironmentAudit): HTMLElement[] {
  const count = (v: string) => env.tasks.filter((t) => verdictOf(t) === v).length;
  const scores = env.tasks.flatMap((t) => (t.mutation?.score === null || t.mutation?.score === undefined ? [] : [t.mutation.score]));
  return [
    h(
      "h2",
      {},
      visibleName(env.name),
      " ",
      h("span", { class: "meta-item" }, `(${env.domain})`),
      " ",
      verdictBadge(env.ok ? "passed" : "failed"),
    ),
    h(
      "div",
      { class: "audit-summary" },
      h("span", { class: "meta-item" }, `${env.tasks.length} tasks: `),
      h("span", { class: "badge bad", "data-count": "failed" }, `failed ${count("failed")}`),
      h("span", { class: "badge ok", "data-count": "passed" }, `passed ${count("passed")}`),
      h("span", { class: "badge warn", "data-count": "not-judged" }, `not judged ${count("not-judged")}`),
      h(
        "span",
        { class: "meta-item" },
        ` · mean mutation score ${scores.length ? fmtNum(scores.reduce((a, b) => a + b, 0) / scores.length) : "–"} (threshold ${fmtNum(env.min_mutation_score)})`,
      ),
      h("span", { class: "meta-item" }, ` · ${visibleName(env.dir)}`),
    ),
  ];
}

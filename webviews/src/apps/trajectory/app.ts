import type { HostApi } from "../../shared/api";
import { append, clear, fmtCount, fmtMs, fmtNum, h, loadStyle } from "../../shared/dom";
import { pollWhileLive } from "../../shared/live-poll";
import { ComparePanel } from "./compare-panel";
import type { InitContext, TrajectoryMeta } from "./protocol";
import { gradesFields } from "./reward-fields";
import { renderReward } from "./step-render";
import { StepsPanel } from "./steps-panel";
import { visibleName } from "../../../../src/core/view/model/visible-text";

type Tab = "steps" | "reward" | "code" | "scene" | "documents" | "compare";

/** The trajectory viewer: header, tabs, and the panel of the active tab. Panels load on first use. */
export class TrajectoryApp {
  private readonly root: HTMLElement;
  private readonly header = h("header", { class: "top" });
  private readonly tabs = h("nav", { class: "tabs", role: "tablist" });
  private readonly body = h("div", { class: "body" });
  private readonly steps: StepsPanel;
  private readonly compare: ComparePanel;
  private meta: TrajectoryMeta | null = null;
  private tab: Tab = "steps";
  private row = 0;
  private panels = new Map<Tab, { el: HTMLElement; show(): Promise<void> | void }>();

  constructor(
    private readonly api: HostApi,
    private readonly ctx: InitContext,
    private readonly snapshot: Record<string, unknown> | null,
    mount: HTMLElement,
  ) {
    this.root = mount;
    const file = ctx.target;
    this.steps = new StepsPanel(api, file);
    this.steps.onSelect = (row) => {
      this.row = row;
      this.save();
    };
    this.steps.onDrawn = (row) => {
      if (!document.body.dataset.firstStepMs) {
        document.body.dataset.firstStepMs = String(performance.now());
        // A task queued from the next animation frame runs after that frame is painted: when the step is on screen.
        requestAnimationFrame(() =>
          setTimeout(() => {
            document.body.dataset.firstPaintMs = String(performance.now());
          }),
        );
      }
      document.body.dataset.drawnRow = String(row);
    };
    const saved = Array.isArray(snapshot?.compare) ? snapshot.compare.filter((x): x is string => typeof x === "string") : null;
    this.compare = new ComparePanel(api, file, saved ?? [...(ctx.compare ? [ctx.compare] : []), ...(ctx.more ?? [])], () => this.save());
    this.panels.set("steps", { el: this.steps.el, show: () => {} });
    this.panels.set("compare", { el: this.compare.el, show: () => this.compare.show() });
  }

  async start(): Promise<void> {
    clear(this.root);
    this.root.append(this.header, this.tabs, this.body);
    await this.refresh();
    const saved = this.snapshot;
    const row = typeof saved?.row === "number" ? saved.row : (this.ctx.row ?? 0);
    const tab = typeof saved?.tab === "string" ? (saved.tab as Tab) : this.ctx.compare ? "compare" : "steps";
    this.steps.list.select(Math.min(row, Math.max(0, (this.meta?.rows ?? 1) - 1)), true);
    this.steps.list.render();
    await this.setTab(this.available().includes(tab) ? tab : "steps");
    if (!this.meta?.complete || this.meta.indexing) this.follow();
    this.api.onChanged(() => void this.refresh());
  }

  /** Live panel: keep asking for the meta until the end event arrives (a banner, and slower tries, when the server stops). */
  private follow(): void {
    pollWhileLive(
      () => this.refresh(),
      () => !(this.meta?.complete && !this.meta.indexing),
    );
  }

  private async refresh(): Promise<void> {
    const meta = await this.api.request("meta", { file: this.ctx.target });
    const old = this.meta;
    const grew = !old || meta.rows !== old.rows || meta.complete !== old.complete || meta.indexing !== old.indexing;
    this.meta = meta;
    this.steps.setCount(meta.rows, meta.complete, meta.indexing);
    if (old && meta.lines > old.lines) this.steps.linesGrew(old.rows);
    if (grew) {
      this.renderHeader();
      this.renderTabs();
    }
  }

  private available(): Tab[] {
    const m = this.meta;
    const tabs: Tab[] = ["steps", "reward"];
    if (m?.domain === "code" || m?.domain === "custom") tabs.push("code");
    if (m?.domain === "scene3d" || (m?.sceneRows.length ?? 0) > 0) tabs.push("scene");
    if (m?.domain === "document") tabs.push("documents");
    if (!tabs.includes("code") && m?.domain !== "scene3d" && m?.domain !== "document") tabs.push("code");
    tabs.push("compare");
    return tabs;
  }

  private renderHeader(): void {
    const m = this.meta;
    clear(this.header);
    if (!m) return;
    const start = m.start?.type === "start" ? m.start : null;
    const end = m.end?.type === "end" ? m.end : null;
    const reward = m.reward?.type === "reward" ? m.reward.total : (end?.reward ?? null);
    const item = (label: string, value: string) => h("span", { class: "meta-item" }, `${label} `, h("b", {}, value));
    append(
      this.header,
      h("h1", {}, start ? `${visibleName(start.task.id)} · sample ${start.sample}` : visibleName(m.file)),
      start ? item("env", `${start.env.name} (${start.env.domain})`) : null,
      start ? item("policy", `${start.policy.kind}${start.policy.model ? ` ${start.policy.model}` : ""}`) : null,
      // A file still being read has not shown its end yet: it is not known to be running.
      end || !m.indexing
        ? h("span", { class: `badge ${end?.status ?? "running"}` }, end?.status ?? "running")
        : h("span", { class: "badge" }, "reading…"),
      item("reward", fmtNum(reward)),
      end ? item("turns", String(end.turns)) : null,
      end ? item("tokens", fmtCount(end.usage.prompt_tokens + end.usage.completion_tokens)) : null,
      end ? item("time", fmtMs(end.timings.total_ms)) : null,
      m.problemCount
        ? h(
            "span",
            { class: "badge warn", title: m.problems.map((p) => `line ${p.line}: ${p.message}`).join("\n") },
            `${fmtCount(m.problemCount)} unreadable line${m.problemCount === 1 ? "" : "s"}`,
          )
        : null,
      m.torn
        ? h(
            "span",
            { class: "badge warn torn", title: "The file ends in the middle of a line: the writer stopped there, or is still writing it." },
            `line ${m.torn.line} incomplete (${fmtCount(m.torn.bytes)} bytes)`,
          )
        : null,
    );
  }

  private renderTabs(): void {
    clear(this.tabs);
    const labels: Record<Tab, string> = {
      steps: "Steps",
      reward: "Reward",
      code: "Files",
      scene: "3D scene",
      documents: "Documents",
      compare: "Compare",
    };
    for (const t of this.available())
      this.tabs.appendChild(
        h("button", { class: t === this.tab ? "active" : "", role: "tab", "data-tab": t, onclick: () => void this.setTab(t) }, labels[t]),
      );
  }

  private async panel(t: Tab): Promise<{ el: HTMLElement; show(): Promise<void> | void }> {
    const existing = this.panels.get(t);
    if (existing) return existing;
    const file = this.ctx.target;
    let p: { el: HTMLElement; show(): Promise<void> | void };
    if (t === "code") {
      loadStyle("trajectory-diff-panel.css");
      const { DiffPanel } = await import("./diff-panel.lazy");
      const d = new DiffPanel(this.api, file);
      this.steps.list.el.addEventListener("click", () => d.setRow(this.row));
      p = {
        el: d.el,
        show: () => {
          d.setRow(this.row);
          return d.show();
        },
      };
    } else if (t === "scene") {
      const { ScenePanel } = await import("./scene-panel.lazy");
      const s = new ScenePanel(this.api, file);
      s.setSceneRows(this.meta?.sceneRows ?? []);
      s.onScrub = (row) => {
        this.row = row;
        this.steps.list.select(row, true);
      };
      p = {
        el: s.el,
        show: () => {
          s.setSceneRows(this.meta?.sceneRows ?? []);
          return s.showRow(this.row || (this.meta?.sceneRows.at(-1) ?? 0));
        },
      };
    } else if (t === "documents") {
      const { DocumentsPanel } = await import("./documents-panel");
      const d = new DocumentsPanel(this.api, file);
      p = { el: d.el, show: () => d.show() };
    } else {
      const el = h("div", { class: "detail reward-panel" });
      p = {
        el,
        show: async () => {
          const r = this.meta?.reward;
          // A report graded field by field: each field's row (expected, got, verdict) comes from the documents view.
          const fields =
            r?.type === "reward" && r.components.some(gradesFields) ? (await this.api.request("documents", { file })).fields : [];
          clear(el);
          el.appendChild(r?.type === "reward" ? renderReward(r, fields) : h("div", { class: "empty" }, "No reward yet."));
        },
      };
    }
    this.panels.set(t, p);
    return p;
  }

  async setTab(t: Tab): Promise<void> {
    this.tab = t;
    this.renderTabs();
    const p = await this.panel(t);
    clear(this.body);
    this.body.appendChild(p.el);
    // The picker lists the run's rollouts (every one indexed whole): the aligned lines need not wait for it.
    if (t === "compare") void this.compare.fillPicker(this.meta?.start?.type === "start" ? this.meta.start.task.id : null);
    try {
      await p.show();
    } catch (err) {
      this.body.appendChild(h("div", { class: "error-banner" }, String(err)));
    }
    this.save();
  }

  private save(): void {
    this.api.saveState({ tab: this.tab, row: this.row, ...(this.compare.targets.length ? { compare: this.compare.targets } : {}) });
  }
}

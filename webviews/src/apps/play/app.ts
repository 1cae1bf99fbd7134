import { append, clear, h } from "../../shared/dom";
import { toolForm } from "./form";
import type { PlayAction, PlayFromApp, PlayMessage, PlayState } from "./protocol";

const PHASE_LABEL: Record<PlayState["phase"], [string, string]> = {
  starting: ["starting the sandbox…", "running"],
  "your-turn": ["your turn", "ok"],
  running: ["running the tool…", "running"],
  finished: ["finished", "completed"],
  failed: ["failed", "error"],
};

/**
 * The Play Task panel: the conversation so far on the left (text nodes only: tool output is
 * untrusted), the move on the right: pick a tool, fill its generated form, call it; or end
 * with a final message. Rebuilt from each state snapshot; the move form is kept while the
 * same turn is waiting, so a state that only adds a notice does not wipe what was typed.
 */
export class PlayApp {
  private selected: string | null = null;
  private moveKey = "";
  private readonly header = h("header", { class: "top" });
  private readonly notice = h("div", { class: "notice", role: "status" });
  private readonly log = h("div", { class: "conversation", "aria-label": "Conversation" });
  private readonly move = h("aside", { class: "move" });

  constructor(
    mount: HTMLElement,
    private readonly post: (m: PlayFromApp) => void,
    private readonly save: (snap: { selected?: string }) => void,
    saved: { selected?: string } | null,
  ) {
    this.selected = saved?.selected ?? null;
    clear(mount);
    mount.append(this.header, this.notice, h("div", { class: "play-body" }, this.log, this.move));
  }

  /** Where the app keeps the user's own choices between reloads (the host keeps the rest). */
  snapshot(): { selected?: string } {
    return this.selected ? { selected: this.selected } : {};
  }

  show(s: PlayState): void {
    this.renderHeader(s);
    this.notice.textContent = s.notice ?? "";
    this.notice.hidden = !s.notice;
    this.renderConversation(s.messages);
    const key = `${s.phase}:${s.turn}:${s.tools.map((t) => t.name).join(",")}`;
    if (key !== this.moveKey) {
      this.moveKey = key;
      this.renderMove(s);
    }
  }

  private renderHeader(s: PlayState): void {
    const [label, cls] = PHASE_LABEL[s.phase];
    clear(this.header);
    append(
      this.header,
      h("h1", {}, s.title),
      h("span", { class: `badge ${cls}`, "data-phase": s.phase }, label),
      h("span", { class: "meta-item" }, "turn ", h("b", {}, String(Math.min(s.turn + 1, s.maxTurns))), ` of ${s.maxTurns}`),
      s.result
        ? h(
            "span",
            { class: "meta-item" },
            "reward ",
            h("b", { class: "reward" }, s.result.reward === null ? "–" : String(s.result.reward)),
          )
        : null,
      s.result ? h("span", { class: `badge ${s.result.status}` }, s.result.status) : null,
      h("span", { class: "spacer" }),
      s.phase === "finished" || s.phase === "failed"
        ? s.result
          ? h("button", { class: "primary", onclick: () => this.post({ kind: "openTrajectory" }) }, "Open trajectory")
          : null
        : h("button", { onclick: () => this.post({ kind: "stop" }), title: "Stop the rollout (the sandbox is closed)" }, "Stop"),
    );
  }

  private renderConversation(messages: PlayMessage[]): void {
    clear(this.log);
    if (messages.length === 0) this.log.append(h("p", { class: "empty" }, "The task starts as soon as the sandbox is ready."));
    messages.forEach((m, i) => {
      const last = i === messages.length - 1 && m.role === "tool";
      this.log.append(
        h(
          "section",
          { class: `msg role-${m.role}${last ? " last-observation" : ""}` },
          h("div", { class: "who" }, m.role === "tool" ? `observation · ${m.tool ?? "tool"}` : m.role),
          m.text ? h("pre", { class: "text" }, m.text) : null,
          ...(m.toolCalls ?? []).map((c) => h("div", { class: "call" }, h("code", {}, `${c.name}(${c.arguments})`))),
        ),
      );
    });
    this.log.lastElementChild?.scrollIntoView({ block: "end" });
  }

  private renderMove(s: PlayState): void {
    clear(this.move);
    if (s.phase !== "your-turn") {
      this.move.append(
        h(
          "p",
          { class: "empty" },
          s.phase === "finished"
            ? "The rollout ended; its trajectory is in the runs folder."
            : s.phase === "failed"
              ? "The rollout stopped."
              : "Waiting for the sandbox…",
        ),
      );
      return;
    }
    const send = (a: PlayAction) => this.post({ kind: "move", action: a });
    if (!this.selected || !s.tools.some((t) => t.name === this.selected)) this.selected = s.tools[0]?.name ?? null;
    const picker = h("div", { class: "tool-picker", role: "tablist", "aria-label": "Tools" });
    const formBox = h("div", { class: "form-box" });
    const select = (name: string) => {
      this.selected = name;
      for (const b of picker.querySelectorAll("button")) b.classList.toggle("active", b.dataset.tool === name);
      const tool = s.tools.find((t) => t.name === name);
      clear(formBox);
      if (tool) formBox.append(toolForm(tool, send));
      this.save(this.snapshot());
    };
    for (const t of s.tools)
      picker.append(
        h("button", { type: "button", role: "tab", "data-tool": t.name, title: t.description, onclick: () => select(t.name) }, t.name),
      );
    const final = h("textarea", {
      class: "final",
      rows: 3,
      placeholder: "A final answer ends the rollout without a tool call",
    }) as HTMLTextAreaElement;
    const finalForm = h(
      "form",
      { class: "final-form" },
      h("h2", {}, "Or end with a message"),
      final,
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Send final message")),
    );
    finalForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      send({ kind: "message", content: final.value });
    });
    this.move.append(h("h2", {}, "Your move: pick a tool"), picker, formBox, finalForm);
    if (this.selected) select(this.selected);
  }
}

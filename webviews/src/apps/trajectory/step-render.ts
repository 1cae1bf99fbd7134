import type {
  EndEvent,
  ErrorEvent,
  MessageEvent,
  ObservationEvent,
  RewardEvent,
  StartEvent,
  ToolCallEvent,
} from "../../../../src/core/schema/trajectory";
import { contentText } from "../../../../src/core/view/model/summarise";
import { renderAnsi } from "../../shared/ansi-dom";
import { fmtCount, fmtMs, fmtNum, h, jsonText } from "../../shared/dom";
import { renderImage, renderImageUrl } from "../../shared/image-dom";
import { renderMarkdown } from "../../shared/markdown-dom";
import { type FieldResult, STEP_PAGE, type StepDetail, type StepEntry } from "./protocol";
import { fieldRows } from "./reward-fields";
import { visibleName } from "../../../../src/core/view/model/visible-text";

function card(kind: string, cls: string, head: Array<Node | string | null>, ...body: Array<Node | null>): HTMLElement {
  return h(
    "section",
    { class: `event ${cls}` },
    h("div", { class: "ev-head" }, h("span", { class: "kind" }, kind), ...head),
    h("div", { class: "ev-body" }, ...body),
  );
}

const meta = (label: string, value: string) => h("span", { class: "meta-item" }, `${label} `, h("b", {}, value));

function content(c: MessageEvent["content"]): HTMLElement {
  if (c === null) return h("div", { class: "empty" }, "(no text)");
  if (typeof c === "string") return renderMarkdown(c);
  const box = h("div");
  for (const part of c) {
    if (part.type === "text") box.appendChild(renderMarkdown(part.text));
    else box.appendChild(renderImageUrl(part.image_url.url, "inline-img", "image"));
  }
  return box;
}

export function renderStart(e: StartEvent): HTMLElement {
  return card(
    "start",
    "start",
    [
      meta("task", visibleName(e.task.id)),
      meta("sample", String(e.sample)),
      meta("policy", `${e.policy.kind}${e.policy.model ? ` ${e.policy.model}` : ""}`),
      meta("sandbox", e.sandbox.backend),
    ],
    renderMarkdown(e.task.prompt),
  );
}

function renderMessage(e: MessageEvent): HTMLElement {
  const head: Array<Node | null> = [h("span", {}, e.role)];
  if (e.usage) head.push(meta("tokens", `${e.usage.prompt_tokens} → ${e.usage.completion_tokens}`));
  if (e.latency_ms !== undefined) head.push(meta("latency", fmtMs(e.latency_ms)));
  const calls = e.tool_calls?.length
    ? h("div", { class: "calls" }, ...e.tool_calls.map((c) => h("div", { class: "meta-item" }, "calls ", h("b", {}, c.name), ` (${c.id})`)))
    : null;
  return card("message", `role-${e.role}`, head, content(e.content), calls);
}

function renderToolCall(e: ToolCallEvent): HTMLElement {
  return card(
    "tool call",
    "tool-call",
    [
      h("b", {}, visibleName(e.name)),
      h("span", { class: "meta-item" }, visibleName(e.id)),
      e.edited ? h("span", { class: "badge warn" }, "edited") : null,
    ],
    h("pre", { class: "json" }, jsonText(e.arguments)),
  );
}

function renderObservation(e: ObservationEvent): HTMLElement {
  const failed = e.status !== "ok" || (e.exit_code ?? 0) !== 0;
  const head: Array<Node | null> = [
    h("b", {}, visibleName(e.name)),
    h("span", { class: `badge ${failed ? "bad" : "ok"}` }, e.status),
    e.exit_code !== undefined && e.exit_code !== null ? meta("exit", String(e.exit_code)) : null,
    meta("took", fmtMs(e.duration_ms)),
  ];
  const text = typeof e.output === "string" ? e.output : contentText(e.output);
  const a = e.artifacts;
  const arts: HTMLElement[] = [];
  if (a?.diff?.length)
    arts.push(
      h(
        "div",
        { class: "meta-item" },
        "changed ",
        ...a.diff.map((d) => h("span", { class: `st ${d.status}` }, `${visibleName(d.path)} (${d.status}) `)),
      ),
    );
  if (a?.scene) arts.push(h("div", { class: "meta-item" }, `scene snapshot: ${a.scene.nodes.length} objects`));
  if (a?.citations?.length)
    arts.push(
      h(
        "div",
        { class: "meta-item" },
        ...a.citations.map((c) =>
          h(
            "div",
            {},
            `cites ${visibleName(c.document)}${c.page !== undefined ? ` p.${c.page}` : ""}: “${c.text ?? `${c.start}–${c.end}`}”`,
          ),
        ),
      ),
    );
  if (a?.images?.length) for (const img of a.images) arts.push(renderImage(img.mime, img.data, "render", "rendered view"));
  if (a?.cases?.length) arts.push(h("pre", { class: "json" }, jsonText(a.cases)));
  return card(
    "observation",
    `observation${failed ? " failed" : ""}`,
    head,
    renderAnsi(text),
    e.truncated
      ? h(
          "div",
          { class: "trunc" },
          `✂ truncated: kept ${fmtCount(e.truncated.kept_chars)} of ${fmtCount(e.truncated.original_chars)} characters`,
        )
      : null,
    e.error ? h("div", { class: "fail" }, e.error) : null,
    ...arts,
  );
}

/** The reward's components, each followed by the fields it graded (`fields`, from the documents view) when it graded a report. */
export function renderReward(e: RewardEvent, fields: readonly FieldResult[] = []): HTMLElement {
  const rows = e.components.flatMap((c) => {
    const own = fields.filter((f) => f.component === c.name);
    return [componentRow(c), own.length ? h("tr", { class: "field-rows-row" }, h("td", { colspan: 6 }, fieldRows(own))) : null];
  });
  return card(
    "reward",
    "reward",
    [meta("total", fmtNum(e.total))],
    h(
      "table",
      { class: "grid reward-table" },
      h("thead", {}, h("tr", {}, ...["verifier", "score", "", "weight", "result", "reason / errors"].map((t) => h("th", {}, t)))),
      h("tbody", {}, ...rows),
    ),
  );
}

function componentRow(c: RewardEvent["components"][number]): HTMLElement {
  return h(
    "tr",
    {},
    h("td", {}, c.name, h("div", { class: "meta-item" }, c.type)),
    h("td", { class: "num" }, fmtNum(c.score)),
    h(
      "td",
      {},
      h(
        "div",
        { class: "bar" },
        (() => {
          const s = h("span");
          s.style.width = `${Math.round(c.score * 100)}%`;
          return s;
        })(),
      ),
    ),
    h("td", { class: "num" }, fmtNum(c.weight, 1)),
    h(
      "td",
      { class: c.passed === false ? "fail" : c.passed ? "pass" : "" },
      c.skipped ? `skipped: ${c.skipped}` : c.passed === undefined ? "–" : c.passed ? "passed" : "failed",
    ),
    h("td", {}, c.reason ?? "", c.error ? h("div", { class: "fail" }, c.error) : null),
  );
}

function renderError(e: ErrorEvent): HTMLElement {
  return card(
    "error",
    "observation failed",
    [h("b", {}, e.where), e.infra ? h("span", { class: "badge warn" }, "infra") : null],
    h("pre", { class: "term" }, e.message),
    e.stderr ? renderAnsi(e.stderr) : null,
    e.stack ? h("pre", { class: "term" }, e.stack) : null,
  );
}

function renderEnd(e: EndEvent): HTMLElement {
  return card(
    "end",
    "end",
    [h("span", { class: `badge ${e.status}` }, e.status), meta("reward", fmtNum(e.reward)), meta("turns", String(e.turns))],
    h(
      "div",
      {},
      meta("total", fmtMs(e.timings.total_ms)),
      " · ",
      meta("policy", fmtMs(e.timings.policy_ms)),
      " · ",
      meta("sandbox", fmtMs(e.timings.sandbox_ms)),
      " · ",
      meta("verify", fmtMs(e.timings.verify_ms)),
      " · ",
      meta("tokens", `${e.usage.prompt_tokens} + ${e.usage.completion_tokens}`),
    ),
    e.reason ? h("p", {}, e.reason) : null,
  );
}

export function renderEntry(entry: StepEntry): HTMLElement {
  if ("problem" in entry) return card("unreadable line", "problem", [meta("line", String(entry.line))], h("pre", {}, entry.problem));
  const e = entry.event;
  switch (e.type) {
    case "start":
      return renderStart(e);
    case "message": {
      const card = renderMessage(e);
      // The Steps panel's token toggle finds the turns that carry tokens by these.
      if (e.role === "assistant" && e.tokens) {
        card.dataset.tokensLine = String(entry.line);
        card.dataset.capture = e.tokens.capture;
      }
      return card;
    }
    case "tool_call":
      return renderToolCall(e);
    case "observation":
      return renderObservation(e);
    case "reward":
      return renderReward(e);
    case "error":
      return renderError(e);
    case "end":
      return renderEnd(e);
  }
}

/** Moves between windows of a step that has more lines than one page holds. */
function pager(step: StepDetail, page: number, go: (from: number) => void): HTMLElement | null {
  if (step.total <= page && step.from === 0) return null;
  const last = Math.min(step.total, step.from + page);
  const btn = (label: string, from: number, enabled: boolean) =>
    h("button", { class: "page-btn", disabled: !enabled, onclick: () => go(from) }, label);
  return h(
    "div",
    { class: "step-pager toolbar", role: "navigation" },
    btn("« first", 0, step.from > 0),
    btn("‹ previous", Math.max(0, step.from - page), step.from > 0),
    h(
      "span",
      { class: "meta-item pager-range" },
      `lines ${fmtCount(step.from + 1)}–${fmtCount(last)} of ${fmtCount(step.total)} in this step`,
    ),
    btn("next ›", step.from + page, last < step.total),
    btn("last »", Math.max(0, Math.floor((step.total - 1) / page) * page), last < step.total),
  );
}

/**
 * A step's events, one window at a time: `go` asks for another window. Children are
 * appended one by one (a spread of thousands of nodes is one call's arguments).
 */
export function renderStep(step: StepDetail, go?: (from: number) => void, page = STEP_PAGE): HTMLElement {
  const el = h("div", { class: "step", "data-row": step.row, "data-from": step.from });
  const nav = go ? pager(step, page, go) : null;
  if (nav) el.appendChild(nav);
  for (const e of step.entries) el.appendChild(renderEntry(e));
  if (nav && step.entries.length > 20) el.appendChild(pager(step, page, go!)!);
  return el;
}

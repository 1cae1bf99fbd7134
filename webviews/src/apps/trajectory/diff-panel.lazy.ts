import "monaco-editor/esm/vs/editor/edcore.main.js";
import * as monaco from "monaco-editor/esm/vs/editor/editor.api.js";
import "monaco-editor/esm/vs/basic-languages/python/python.contribution.js";
import "monaco-editor/esm/vs/basic-languages/javascript/javascript.contribution.js";
import "monaco-editor/esm/vs/basic-languages/typescript/typescript.contribution.js";
import "monaco-editor/esm/vs/basic-languages/shell/shell.contribution.js";
import "monaco-editor/esm/vs/basic-languages/markdown/markdown.contribution.js";
import "monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js";
import type { FileDiff } from "../../../../src/core/schema/trajectory";
import type { HostApi } from "../../shared/api";
import { clear, h, isDark } from "../../shared/dom";
import { visibleName } from "../../../../src/core/view/model/visible-text";

/**
 * Monaco's diff runs in its editor worker, started from a blob holding the worker script's
 * text. The page fetches that text itself: a VS Code webview serves its resources through
 * a service worker, which answers the page's fetches but not a worker's `importScripts`
 * (a worker importing the bundle got no script, never answered Monaco's handshake, and
 * the diff stayed empty: no red, no green). Without the text (the fetch failed), getWorker
 * throws and Monaco computes the diff on the page's thread instead.
 */
async function setWorker(): Promise<void> {
  const url = new URL(document.body.dataset.worker ?? "editor.worker.js", location.href).toString();
  let source: string | null = null;
  try {
    const res = await fetch(url);
    if (res.ok) source = await res.text();
    else console.warn(`Monaco's worker script: ${res.status} from ${url}; diffs are computed on the page`);
  } catch (err) {
    console.warn(`Monaco's worker script could not be read (${String(err)}); diffs are computed on the page`);
  }
  const blob = source === null ? null : URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  window.MonacoEnvironment = {
    getWorker: () => {
      if (!blob) throw new Error("no worker script");
      return new Worker(blob);
    },
  };
}

const LANG = new Map(
  Object.entries({
    py: "python",
    js: "javascript",
    mjs: "javascript",
    ts: "typescript",
    sh: "shell",
    md: "markdown",
    yaml: "yaml",
    yml: "yaml",
    json: "json",
  }),
);
const langOf = (p: string) => LANG.get(p.split(".").pop() ?? "") ?? "plaintext";

/** The files the agent changed, overall or for one step, in a Monaco diff editor. */
export class DiffPanel {
  readonly el: HTMLElement;
  private readonly list = h("div", { class: "side-list files" });
  private readonly host = h("div", { class: "monaco-host" });
  private readonly scope = h(
    "select",
    { "aria-label": "scope" },
    h("option", { value: "all" }, "All steps"),
    h("option", { value: "step" }, "Selected step"),
  );
  private editor: monaco.editor.IStandaloneDiffEditor | null = null;
  private creating: Promise<monaco.editor.IStandaloneDiffEditor> | null = null;
  private diffs: FileDiff[] = [];
  private current = 0;
  private row = 0;

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {
    this.scope.addEventListener("change", () => void this.load());
    this.el = h(
      "div",
      { class: "panel code-panel" },
      h(
        "div",
        { class: "side-list-wrap", style: "display:flex;flex-direction:column" },
        h("div", { class: "toolbar" }, "Files ", this.scope),
        this.list,
      ),
      h("div", { class: "scene-wrap" }, this.host),
    );
  }

  setRow(row: number): void {
    this.row = row;
    if (this.scope.value === "step" && this.editor) void this.load();
  }

  async show(): Promise<void> {
    // One editor, however often the tab is shown while the worker script is being read.
    this.creating ??= setWorker().then(() =>
      monaco.editor.createDiffEditor(this.host, {
        readOnly: true,
        automaticLayout: true,
        renderSideBySide: true,
        theme: isDark() ? "vs-dark" : "vs",
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        originalEditable: false,
        // Bidirectional controls in a diff are drawn as visible marks (a file cannot read reversed).
        renderControlCharacters: true,
        unicodeHighlight: { invisibleCharacters: true, ambiguousCharacters: true, nonBasicASCII: false },
      }),
    );
    this.editor = await this.creating;
    await this.load();
  }

  private async load(): Promise<void> {
    this.diffs = await this.api.request("diff", { file: this.file, row: this.scope.value === "step" ? this.row : null });
    this.current = Math.min(this.current, Math.max(0, this.diffs.length - 1));
    clear(this.list);
    if (this.diffs.length === 0)
      this.list.appendChild(
        h("div", { class: "empty" }, this.scope.value === "step" ? "No files changed in this step." : "No files changed."),
      );
    this.diffs.forEach((d, i) => {
      this.list.appendChild(
        h(
          "div",
          { class: `item${i === this.current ? " active" : ""}`, title: visibleName(d.path), onclick: () => this.pick(i) },
          h("span", { class: `st ${d.status}` }, d.status[0]!.toUpperCase()),
          visibleName(d.path),
        ),
      );
    });
    this.pick(this.current);
  }

  private pick(i: number): void {
    this.current = i;
    for (const [k, el] of [...this.list.querySelectorAll(".item")].entries()) el.classList.toggle("active", k === i);
    const d = this.diffs[i];
    if (!this.editor) return;
    const old = this.editor.getModel();
    const lang = d ? langOf(d.path) : "plaintext";
    this.editor.setModel({
      original: monaco.editor.createModel(d?.binary ? "(binary)" : (d?.before ?? ""), lang),
      modified: monaco.editor.createModel(d?.binary ? "(binary)" : (d?.after ?? ""), lang),
    });
    old?.original.dispose();
    old?.modified.dispose();
  }
}

import { parseAnsi } from "../../../src/core/view/model/ansi";
import { visibleBidi } from "../../../src/core/view/model/visible-text";
import { h } from "./dom";

/** Terminal output with ANSI colours as styled spans of text. */
export function renderAnsi(text: string, cls = "term"): HTMLElement {
  const pre = h("pre", { class: cls });
  for (const seg of parseAnsi(text)) {
    const s = seg.style;
    if (!s.fg && !s.bg && !s.bold && !s.dim && !s.italic && !s.underline) {
      pre.appendChild(document.createTextNode(visibleBidi(seg.text)));
      continue;
    }
    const span = h("span", {}, visibleBidi(seg.text));
    if (s.fg) span.style.color = s.fg;
    if (s.bg) span.style.backgroundColor = s.bg;
    if (s.bold) span.style.fontWeight = "bold";
    if (s.dim) span.style.opacity = "0.7";
    if (s.italic) span.style.fontStyle = "italic";
    if (s.underline) span.style.textDecoration = "underline";
    pre.appendChild(span);
  }
  return pre;
}

/**
 * Splits terminal output into styled segments from ANSI SGR escapes (colours, bold,
 * dim, italic, underline, inverse). Other escapes are dropped. The renderer turns each
 * segment into a text node inside a styled span, so output is never parsed as HTML.
 */
export interface AnsiStyle {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
}
export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

/** The 16 basic colours as CSS variables the page defines (terminal theme of VS Code where present). */
const BASIC = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
const basic = (i: number, bright: boolean) => `var(--ansi-${bright ? "bright-" : ""}${BASIC[i]})`;

function color256(n: number): string {
  if (n < 8) return basic(n, false);
  if (n < 16) return basic(n - 8, true);
  if (n < 232) {
    const v = n - 16;
    const c = (x: number) => (x === 0 ? 0 : 55 + x * 40);
    return `rgb(${c(Math.floor(v / 36))},${c(Math.floor(v / 6) % 6)},${c(v % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

const plain = (): AnsiStyle => ({ fg: null, bg: null, bold: false, dim: false, italic: false, underline: false });

// CSI sequences (ESC [ params letter) and OSC sequences (ESC ] … BEL or ESC \).
const ESCAPE = /\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function parseAnsi(input: string): AnsiSegment[] {
  const out: AnsiSegment[] = [];
  let style = plain();
  let last = 0;
  const push = (text: string) => {
    if (!text) return;
    const prev = out[out.length - 1];
    if (prev && JSON.stringify(prev.style) === JSON.stringify(style)) prev.text += text;
    else out.push({ text, style: { ...style } });
  };
  for (const m of input.matchAll(ESCAPE)) {
    push(input.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] !== "m") continue;
    const codes = (m[1] ?? "").split(";").map((c) => (c === "" ? 0 : Number.parseInt(c, 10)));
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (c === 0) style = plain();
      else if (c === 1) style.bold = true;
      else if (c === 2) style.dim = true;
      else if (c === 3) style.italic = true;
      else if (c === 4) style.underline = true;
      else if (c === 22) style.bold = style.dim = false;
      else if (c === 23) style.italic = false;
      else if (c === 24) style.underline = false;
      else if (c >= 30 && c <= 37) style.fg = basic(c - 30, false);
      else if (c >= 90 && c <= 97) style.fg = basic(c - 90, true);
      else if (c >= 40 && c <= 47) style.bg = basic(c - 40, false);
      else if (c >= 100 && c <= 107) style.bg = basic(c - 100, true);
      else if (c === 39) style.fg = null;
      else if (c === 49) style.bg = null;
      else if (c === 38 || c === 48) {
        let value: string | null = null;
        if (codes[i + 1] === 5 && codes[i + 2] !== undefined) {
          value = color256(codes[i + 2]!);
          i += 2;
        } else if (codes[i + 1] === 2 && codes[i + 4] !== undefined) {
          value = `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
          i += 4;
        }
        if (c === 38) style.fg = value;
        else style.bg = value;
      }
    }
  }
  push(input.slice(last));
  return out;
}

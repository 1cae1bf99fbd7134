/**
 * Inline Markdown as CommonMark reads it, for the parts the viewer renders: code spans,
 * backslash escapes, `*`/`_` emphasis by the spec's delimiter-run rules, and links with a
 * safe target. Emphasis follows the spec's "process emphasis" algorithm: a run of `_`
 * inside a word (`self.__dict__`, `snake_case`) neither opens nor closes, and the rule of
 * three decides runs that could do both (one addition for code names, see `flanking`). Everything else (raw HTML, autolinks, entities)
 * stays the text it is: the tree is rendered with text nodes only.
 */
export type Inline =
  | { t: "text"; text: string }
  | { t: "code"; text: string }
  | { t: "strong"; children: Inline[] }
  | { t: "em"; children: Inline[] }
  | { t: "link"; href: string; children: Inline[] };

const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Whether a link target may be followed (else the link renders as text). */
export function isSafeUrl(href: string): boolean {
  // Browsers ignore control characters and whitespace inside schemes ("java\tscript:").
  const cleaned = href.replace(/[\u0000-\u0020\u007f]/g, "");
  return SAFE_URL.test(cleaned) && cleaned === href.trim();
}

/** Deeper than this (brackets inside brackets), the rest of a link label is text: no input can exhaust the stack. */
const MAX_DEPTH = 16;
/** Autolinks and raw HTML bind tighter than emphasis: they are taken whole (a safe autolink as a link, the rest as text). */
const AUTOLINK = /^<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/;
const RAW_HTML =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>|<!--[\s\S]*?-->)/;
const MAX_LABEL = 1000;
const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const PUNCT = /[\p{P}\p{S}]/u;
const SPACE = /[\s\p{Zs}]/u;
const WORD = /[\p{L}\p{N}]/u;
const CODE_NAME_BEFORE = new Set([".", "'", '"']);

interface Delim {
  ch: "*" | "_";
  /** Delimiters left in the run (emphasis takes them from the inner end). */
  count: number;
  /** The run's length as written (the rule of three reads it). */
  length: number;
  canOpen: boolean;
  canClose: boolean;
}

/** A doubly linked list of inlines and delimiter runs: emphasis wraps spans of it in place. */
interface Item {
  node: Inline | null;
  delim: Delim | null;
  prev: Item | null;
  next: Item | null;
}

function charBefore(src: string, i: number): string {
  if (i === 0) return "\n";
  const c = src.codePointAt(i - 1)!;
  // A low surrogate: step back over the pair so the category test sees the whole character.
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) return String.fromCodePoint(src.codePointAt(i - 2)!);
  return src[i - 1]!;
}

function charAfter(src: string, i: number): string {
  if (i >= src.length) return "\n";
  return String.fromCodePoint(src.codePointAt(i)!);
}

/** The flanking tests of the spec (a line's start and end count as whitespace). */
function flanking(src: string, from: number, to: number, ch: "*" | "_"): { canOpen: boolean; canClose: boolean } {
  const before = charBefore(src, from);
  const after = charAfter(src, to);
  const spaceBefore = SPACE.test(before);
  const spaceAfter = SPACE.test(after);
  const punctBefore = PUNCT.test(before);
  const punctAfter = PUNCT.test(after);
  const left = !spaceAfter && (!punctAfter || spaceBefore || punctBefore);
  const right = !spaceBefore && (!punctBefore || spaceAfter || punctAfter);
  if (ch === "*") return { canOpen: left, canClose: right };
  // One addition to the spec: `_` after `.` or a quote and before a name character starts a
  // code name (`obj.__init__`, `'__main__'`), never emphasis. No spec example has that shape.
  const codeName = CODE_NAME_BEFORE.has(before) && WORD.test(after);
  return { canOpen: left && (!right || punctBefore) && !codeName, canClose: right && (!left || punctAfter) };
}

/** A code span's text: line endings become spaces; one space each side is dropped when both are there. */
function codeText(raw: string): string {
  const s = raw.replace(/\n/g, " ");
  return s.length >= 2 && s.startsWith(" ") && s.endsWith(" ") && s.trim() !== "" ? s.slice(1, -1) : s;
}

/** Where a `[label](target)` starting at `i` ends, with its parts; null when it is not one. */
function linkAt(src: string, i: number): { label: string; href: string; end: number } | null {
  let depth = 0;
  // Labels longer than the spec's 999-character limit are not looked for (keeps `[[[[…` linear).
  const end = Math.min(src.length, i + MAX_LABEL);
  for (let j = i; j < end; j++) {
    const c = src[j];
    if (c === "\\") {
      j++;
      continue;
    }
    if (c === "`") {
      // Brackets inside a code span do not count.
      const run = /^`+/.exec(src.slice(j))![0];
      const close = src.indexOf(run, j + run.length);
      if (close > 0) j = close + run.length - 1;
      continue;
    }
    if (c === "[") depth++;
    else if (c === "]" && --depth === 0) {
      if (src[j + 1] !== "(") return null;
      const close = src.indexOf(")", j + 2);
      if (close < 0) return null;
      const href = src.slice(j + 2, close).trim();
      if (/\s/.test(href)) return null;
      return { label: src.slice(i + 1, j), href, end: close + 1 };
    }
  }
  return null;
}

function tokenize(src: string, depth: number): Item[] {
  const items: Item[] = [];
  let text = "";
  const push = (node: Inline | null, delim: Delim | null = null) => {
    if (text) items.push({ node: { t: "text", text }, delim: null, prev: null, next: null });
    text = "";
    items.push({ node, delim, prev: null, next: null });
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === "\\" && i + 1 < src.length && ASCII_PUNCT.test(src[i + 1]!)) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      const run = /^`+/.exec(src.slice(i, i + 1000))![0];
      // The closer is a backtick run of exactly the same length.
      let close = src.indexOf(run, i + run.length);
      while (close >= 0 && (src[close + run.length] === "`" || src[close - 1] === "`")) {
        let k = close;
        while (src[k] === "`") k++;
        close = src.indexOf(run, k);
      }
      if (close < 0) {
        text += run;
        i += run.length;
        continue;
      }
      push({ t: "code", text: codeText(src.slice(i + run.length, close)) });
      i = close + run.length;
      continue;
    }
    if (ch === "*" || ch === "_") {
      let j = i;
      while (src[j] === ch) j++;
      const { canOpen, canClose } = flanking(src, i, j, ch);
      if (!canOpen && !canClose) text += src.slice(i, j);
      else push({ t: "text", text: src.slice(i, j) }, { ch, count: j - i, length: j - i, canOpen, canClose });
      i = j;
      continue;
    }
    if (ch === "<") {
      const head = src.slice(i, i + 2000);
      const auto = AUTOLINK.exec(head);
      if (auto && isSafeUrl(auto[1]!)) {
        push({ t: "link", href: auto[1]!, children: [{ t: "text", text: auto[1]! }] });
        i += auto[0].length;
        continue;
      }
      const raw = auto ?? RAW_HTML.exec(head);
      if (raw) {
        text += raw[0];
        i += raw[0].length;
        continue;
      }
    }
    if (ch === "[" && depth < MAX_DEPTH) {
      const link = linkAt(src, i);
      if (link) {
        if (isSafeUrl(link.href)) push({ t: "link", href: link.href, children: parse(link.label, depth + 1) });
        else text += src.slice(i, link.end);
        i = link.end;
        continue;
      }
    }
    text += ch;
    i++;
  }
  if (text) items.push({ node: { t: "text", text }, delim: null, prev: null, next: null });
  for (let k = 0; k < items.length; k++) {
    items[k]!.prev = items[k - 1] ?? null;
    items[k]!.next = items[k + 1] ?? null;
  }
  return items;
}

/** Text and nodes of the items from `a` up to (not including) `b`, as inlines. */
function collect(a: Item | null, b: Item | null): Inline[] {
  const out: Inline[] = [];
  for (let it = a; it && it !== b; it = it.next) if (it.node) out.push(it.node);
  return out;
}

/** The spec's "process emphasis" over the whole list. */
function processEmphasis(head: Item): Item {
  // openers_bottom: per delimiter character, closer length mod 3 and whether the closer can open.
  const bottom = new Map<string, Item | null>();
  const delims = (from: Item | null) => {
    let it = from;
    while (it && !it.delim) it = it.next;
    return it;
  };
  let first: Item = head;
  let closer = delims(head);
  while (closer) {
    const d = closer.delim!;
    if (!d.canClose) {
      closer = delims(closer.next);
      continue;
    }
    const key = `${d.ch}${d.length % 3}${d.canOpen}`;
    const floor = bottom.has(key) ? bottom.get(key)! : null;
    let opener: Item | null = closer.prev;
    let found: Item | null = null;
    while (opener && opener !== floor) {
      const o = opener.delim;
      if (o && o.ch === d.ch && o.canOpen && o.count > 0) {
        const odd = (o.canClose || d.canOpen) && (o.length + d.length) % 3 === 0 && !(o.length % 3 === 0 && d.length % 3 === 0);
        if (!odd) {
          found = opener;
          break;
        }
      }
      opener = opener.prev;
    }
    if (!found) {
      bottom.set(key, closer.prev);
      if (!d.canOpen) closer.delim = null;
      closer = delims(closer.next);
      continue;
    }
    const o = found.delim!;
    const n = o.count >= 2 && d.count >= 2 ? 2 : 1;
    o.count -= n;
    d.count -= n;
    (found.node as { text: string }).text = o.ch.repeat(o.count);
    (closer.node as { text: string }).text = d.ch.repeat(d.count);
    // Delimiters between opener and closer can no longer match anything.
    for (let it = found.next; it && it !== closer; it = it.next) it.delim = null;
    const children = collect(found.next, closer);
    const wrapped: Item = { node: n === 2 ? { t: "strong", children } : { t: "em", children }, delim: null, prev: found, next: closer };
    found.next = wrapped;
    closer.prev = wrapped;
    if (o.count === 0) {
      found.delim = null;
      found.node = null;
    }
    if (d.count === 0) {
      closer.delim = null;
      closer.node = null;
      closer = delims(closer.next);
    }
  }
  while (first.prev) first = first.prev;
  return first;
}

/** The plain text under a node, without recursion (emphasis can nest thousands deep). */
function plainText(root: Inline): string {
  let out = "";
  const stack: Inline[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.t === "text" || n.t === "code") out += n.text;
    else for (let k = n.children.length - 1; k >= 0; k--) stack.push(n.children[k]!);
  }
  return out;
}

/** Adjacent text nodes joined, empty ones dropped; emphasis nested past MAX_DEPTH becomes its text. */
function tidy(input: Inline[], depth = 0): Inline[] {
  const nodes = depth < MAX_DEPTH ? input : input.map((n): Inline => (n.t === "text" ? n : { t: "text", text: plainText(n) }));
  const out: Inline[] = [];
  for (const n of nodes) {
    if (n.t === "text") {
      if (!n.text) continue;
      const last = out[out.length - 1];
      if (last?.t === "text") {
        out[out.length - 1] = { t: "text", text: last.text + n.text };
        continue;
      }
    }
    if (n.t === "strong" || n.t === "em" || n.t === "link") out.push({ ...n, children: tidy(n.children, depth + 1) });
    else out.push(n);
  }
  return out;
}

function parse(src: string, depth: number): Inline[] {
  const items = tokenize(src, depth);
  if (!items.length) return [];
  return tidy(collect(processEmphasis(items[0]!), null));
}

export function parseInline(src: string): Inline[] {
  return parse(src, 0);
}

import { isMap, isPair, isScalar, isSeq, type Node, parseDocument } from "yaml";
import { renderReference } from "./reference";

/** Which manifest file a hover is in: environment.yaml or a task folder's task.yaml. */
export type ManifestKind = "environment" | "task";

/** One section of the reference: its heading line's title and its text down to the next heading of its level or above. */
export interface ReferenceSection {
  title: string;
  level: number;
  text: string;
}

/** The reference's sections in order (every heading starts one; a section holds its subsections). */
export function referenceSections(markdown: string): ReferenceSection[] {
  const lines = markdown.split("\n");
  const heads = lines.flatMap((l, i) => {
    const m = /^(#{2,4}) (.+)$/.exec(l);
    return m?.[1] && m[2] ? [{ i, level: m[1].length, title: m[2] }] : [];
  });
  return heads.map((h, n) => {
    const next = heads.slice(n + 1).find((x) => x.level <= h.level);
    return {
      title: h.title,
      level: h.level,
      text: lines
        .slice(h.i, next ? next.i : lines.length)
        .join("\n")
        .trim(),
    };
  });
}

/** The key path of the YAML key under `offset` (undefined off a key), with the document to read values from. */
export function keyPathAt(
  text: string,
  offset: number,
): { path: Array<string | number>; value: (p: Array<string | number>) => unknown } | undefined {
  const doc = parseDocument(text, { keepSourceTokens: false, prettyErrors: false });
  const path: Array<string | number> = [];
  let node: Node | null | undefined = doc.contents as Node | null;
  let onKey = false;
  for (let depth = 0; node && depth < 64; depth++) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        if (!isPair(p)) return false;
        const k = p.key as Node | null;
        const v = p.value as Node | null;
        const start = k?.range?.[0] ?? 0;
        const end = v?.range?.[2] ?? k?.range?.[1] ?? start;
        return offset >= start && offset <= end;
      });
      if (!pair || !isScalar(pair.key)) break;
      path.push(String(pair.key.value));
      const k = pair.key as Node;
      onKey = !!k.range && offset >= k.range[0] && offset <= k.range[1];
      if (onKey) break;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((it) => {
        const r = (it as Node | null)?.range;
        return !!r && offset >= r[0] && offset <= r[2];
      });
      if (i < 0) break;
      path.push(i);
      node = node.items[i] as Node | null;
    } else break;
  }
  if (!onKey) return undefined;
  return { path, value: (p) => doc.getIn(p) as unknown };
}

const code = (s: string) => `\`${s}\``;

/**
 * The reference section a manifest key is documented in, by its path and the values around it:
 * a tool name its tool, `comparator` its comparator, a scene check its check, a `script` verifier
 * what it receives, `tasks`/`solution` the task folder layout, a document `target` its keys.
 */
export function topicFor(
  kind: ManifestKind,
  path: ReadonlyArray<string | number>,
  value: (p: Array<string | number>) => unknown,
  domain: string,
): string[] | undefined {
  const key = path[path.length - 1];
  const here = value([...path]);
  const parent = path.slice(0, -1) as Array<string | number>;
  const sibling = (k: string) => value([...parent, k]);
  if (key === "comparator" && typeof here === "string") return ["Field comparators", code(here)];
  if (key === "check" && typeof here === "string") return ["Scene checks", code(here)];
  if (key === "checks") return ["Scene checks"];
  if (key === "type" && here === "script") return ["What a `script` verifier receives"];
  if (key === "command" && sibling("type") === "script") return ["What a `script` verifier receives"];
  if (kind === "environment" && path[0] === "tools" && path.length === 1) return ["Built-in tools", domain];
  if (kind === "environment" && key === "tasks" && path.length === 1) return ["Task folders"];
  if (kind === "task" && (key === "solution" || key === "files" || key === "tests" || key === "visible_tests") && path.length === 1)
    return ["Task folders"];
  if (kind === "task" && key === "reward" && path.length === 1) return ["What a `script` verifier receives"];
  if (kind === "task" && domain === "document" && path[0] === "target" && (path.length === 1 || key === "schema" || key === "grading"))
    return ["Document targets and `target.schema`"];
  return undefined;
}

/** The section under a chain of titles (each looked for after the one before it). */
export function sectionAt(sections: ReferenceSection[], titles: readonly string[]): ReferenceSection | undefined {
  let from = 0;
  let found: ReferenceSection | undefined;
  for (const t of titles) {
    const i = sections.findIndex((s, n) => n >= from && s.title === t);
    if (i < 0) return found;
    found = sections[i];
    from = i + 1;
  }
  return found;
}

let rendered: Promise<ReferenceSection[]> | undefined;

/** The reference text (docs/reference.md, rendered from the same code) for the manifest key under `offset`; undefined when it documents none. */
export async function referenceHover(kind: ManifestKind, text: string, offset: number, domain: string): Promise<string | undefined> {
  const at = keyPathAt(text, offset);
  if (!at) return undefined;
  const titles = topicFor(kind, at.path, at.value, domain);
  if (!titles) return undefined;
  rendered ??= renderReference().then(referenceSections);
  return sectionAt(await rendered, titles)?.text;
}

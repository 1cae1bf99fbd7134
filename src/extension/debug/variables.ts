import type { DebugProtocol } from "@vscode/debugprotocol";

/** A container the Variables view can expand; `edit` marks the pending call's arguments (editable). */
interface Container {
  value: unknown;
  path: Array<string | number>;
  edit: boolean;
}

const PREVIEW = 120;

/** One line for a value: strings quoted and cut, containers summarised. */
export function preview(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > PREVIEW ? `${v.slice(0, PREVIEW)}…` : v);
  if (Array.isArray(v)) return `Array(${v.length})`;
  if (v && typeof v === "object") {
    const s = JSON.stringify(v);
    return s.length > PREVIEW ? `${s.slice(0, PREVIEW)}…}` : s;
  }
  return String(v);
}

/**
 * Variable references for one pause: JSON values turned into expandable DAP variables.
 * Cleared on every resume, as DAP references are only valid while stopped.
 */
export class VariableStore {
  private readonly byRef = new Map<number, Container>();
  private next = 1;

  clear(): void {
    this.byRef.clear();
  }

  /** A reference for a container value (0 for a scalar: nothing to expand). */
  ref(value: unknown, path: Array<string | number> = [], edit = false): number {
    if (!value || typeof value !== "object") return 0;
    const id = this.next++;
    this.byRef.set(id, { value, path, edit });
    return id;
  }

  get(ref: number): Container | undefined {
    return this.byRef.get(ref);
  }

  variables(ref: number): DebugProtocol.Variable[] {
    const c = this.byRef.get(ref);
    if (!c) return [];
    const entries: Array<[string, unknown]> = Array.isArray(c.value)
      ? c.value.map((v, i) => [String(i), v])
      : Object.entries(c.value as Record<string, unknown>);
    return entries.map(([name, v]) => ({
      name,
      value: preview(v),
      type: Array.isArray(v) ? "array" : v === null ? "null" : typeof v,
      variablesReference: this.ref(v, [...c.path, Array.isArray(c.value) ? Number(name) : name], c.edit),
    }));
  }
}

/** The value typed in the Variables view: JSON when it parses, else the text itself. */
export function parseTyped(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A copy of `root` with the value at `path` replaced. */
export function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(root)) {
    const copy: unknown[] = [...root];
    copy[Number(head)] = setAt(copy[Number(head)], rest, value);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(root && typeof root === "object" ? (root as Record<string, unknown>) : {}) };
  copy[String(head)] = setAt(copy[String(head)], rest, value);
  return copy;
}

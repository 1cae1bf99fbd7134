import type { FileDiff, ObservationEvent, RewardEvent, SceneSnapshot, ToolCallEvent, TrajectoryEvent } from "../../schema/trajectory";
import type { CheckResult, DocPage, DocumentsView, FieldResult } from "../protocol/trajectory";
import { contentText } from "./summarise";

/** One row's events, with the row index they belong to. */
export interface RowEvents {
  row: number;
  events: TrajectoryEvent[];
}

function observations(rows: RowEvents[]): Array<{ row: number; obs: ObservationEvent }> {
  return rows.flatMap((r) => r.events.filter((e): e is ObservationEvent => e.type === "observation").map((obs) => ({ row: r.row, obs })));
}

/**
 * The files changed over a span of steps: for each path the first `before` and the
 * last `after`, so a file edited three times shows one diff from the original.
 * A file added then deleted drops out.
 */
export function mergeDiffs(diffs: FileDiff[]): FileDiff[] {
  const byPath = new Map<string, FileDiff>();
  for (const d of diffs) {
    const prev = byPath.get(d.path);
    if (!prev) {
      byPath.set(d.path, { ...d });
      continue;
    }
    const before = prev.before;
    const after = d.after;
    if (before === null && after === null) {
      byPath.delete(d.path);
      continue;
    }
    const status = before === null ? "added" : after === null ? "deleted" : "modified";
    byPath.set(d.path, { path: d.path, status, before, after, binary: prev.binary || d.binary });
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

export function diffsOf(rows: RowEvents[]): FileDiff[] {
  return observations(rows).flatMap(({ obs }) => obs.artifacts?.diff ?? []);
}

/** The last scene snapshot among the rows, with the row it came from. */
export function lastScene(rows: RowEvents[]): { row: number; scene: SceneSnapshot } | null {
  let found: { row: number; scene: SceneSnapshot } | null = null;
  for (const { row, obs } of observations(rows)) if (obs.artifacts?.scene) found = { row, scene: obs.artifacts.scene };
  return found;
}

export function imagesOf(rows: RowEvents[]): Array<{ row: number; mime: string; data: string }> {
  return observations(rows).flatMap(({ row, obs }) => (obs.artifacts?.images ?? []).map((i) => ({ row, ...i })));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
/** A record's own property: a key from the trajectory (`valueOf`, `__proto__`) never reaches the prototype. */
export function own(v: unknown, key: string): unknown {
  return isRecord(v) && Object.hasOwn(v, key) ? v[key] : undefined;
}
function str(v: unknown): string | null {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
}

/**
 * Per-check results of scene verifiers, read from `details.checks` of reward
 * components (the scene domain writes {label, passed, reason, objects}). The objects a
 * check names come from `objects`, `target`, `node` or `object`.
 */
export function sceneChecks(reward: RewardEvent | null): CheckResult[] {
  if (!reward) return [];
  const out: CheckResult[] = [];
  for (const c of reward.components) {
    const checks = own(c.details, "checks");
    if (!Array.isArray(checks)) continue;
    for (const [i, raw] of checks.entries()) {
      const passed = own(raw, "passed");
      if (typeof passed !== "boolean") continue;
      const objects = own(raw, "objects");
      const targets = [...(Array.isArray(objects) ? objects : []), own(raw, "target"), own(raw, "node"), own(raw, "object")]
        .map(str)
        .filter((x): x is string => x !== null);
      const reason = str(own(raw, "reason")) ?? str(own(raw, "message"));
      const name = str(own(raw, "label")) ?? str(own(raw, "name")) ?? str(own(raw, "check")) ?? str(own(raw, "type")) ?? `${c.name}#${i}`;
      out.push({ name, targets: [...new Set(targets)], passed, ...(reason ? { reason } : {}) });
    }
  }
  return out;
}

/** Tools whose output is document text; their citation artifacts mark what was read, not what was cited. */
const READ_TOOLS = new Set(["read", "find", "search", "read_page", "read_document", "list_documents"]);
const REPORT_TOOLS = new Set(["submit_report", "submit"]);
/** The document domain's read header: "NAME p.N of M (chars A-B of L)". */
const READ_HEADER = /^(.+?) p\.(\d+) of \d+ \(chars (\d+)-(\d+) of \d+\)\n/;

function parseArgs(call: ToolCallEvent | undefined): Record<string, unknown> {
  if (!call) return {};
  if (isRecord(call.arguments)) return call.arguments;
  if (typeof call.arguments === "string") {
    try {
      const v: unknown = JSON.parse(call.arguments);
      return isRecord(v) ? v : {};
    } catch {
      return {};
    }
  }
  return {};
}

/** A dotted path into a value through own properties and array indexes only; undefined when any step is missing. */
export function getPath(v: unknown, dotted: string): unknown {
  let cur = v;
  for (const k of dotted.split(".")) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(k) ? cur[Number(k)] : undefined;
    else cur = own(cur, k);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** The first of the keys the record has as its own, as [found, value]. */
function firstOwn(v: unknown, keys: string[]): { found: boolean; value: unknown } {
  for (const k of keys) if (isRecord(v) && Object.hasOwn(v, k)) return { found: true, value: v[k] };
  return { found: false, value: undefined };
}

/**
 * Submitted-vs-gold per field, from `details.fields` of reward components (an array of
 * outcomes or a map by field). The submitted value is read from the report when the
 * outcome does not carry it.
 */
export function fieldResults(reward: RewardEvent | null, report: unknown): FieldResult[] {
  if (!reward) return [];
  const out: FieldResult[] = [];
  for (const c of reward.components) {
    const fields = own(c.details, "fields");
    const list: Array<[string | null, unknown]> = Array.isArray(fields)
      ? fields.map((f) => [null, f])
      : isRecord(fields)
        ? Object.entries(fields)
        : [];
    for (const [key, raw] of list) {
      if (!isRecord(raw)) continue;
      const field = key ?? str(own(raw, "field")) ?? str(own(raw, "name")) ?? "?";
      const recorded = firstOwn(raw, ["got", "actual", "submitted"]);
      const fromReport = recorded.found ? undefined : getPath(report, field);
      const got = recorded.found ? recorded.value : fromReport;
      const expected = firstOwn(raw, ["expected", "gold"]);
      const passed = own(raw, "passed");
      const score = own(raw, "score");
      out.push({
        field,
        component: c.name,
        comparator: str(own(raw, "comparator")),
        ...(got !== undefined ? { got } : {}),
        ...(expected.found && expected.value !== undefined ? { expected: expected.value } : {}),
        passed: typeof passed === "boolean" ? passed : null,
        score: typeof score === "number" && Number.isFinite(score) ? score : null,
        reason: str(own(raw, "reason")) ?? str(own(raw, "error")),
      });
    }
  }
  return out;
}

/** Pages the agent read, the spans it cited, its submitted report and the gold comparison. */
export function documentsView(rows: RowEvents[], reward: RewardEvent | null): DocumentsView {
  const calls = new Map<string, ToolCallEvent>();
  let report: unknown = null;
  for (const r of rows)
    for (const e of r.events)
      if (e.type === "tool_call") {
        calls.set(e.id, e);
        if (REPORT_TOOLS.has(e.name)) report = e.arguments;
      }
  const pages: DocPage[] = [];
  const citations: DocumentsView["citations"] = [];
  for (const { row, obs } of observations(rows)) {
    const read = READ_TOOLS.has(obs.name);
    if (!read)
      for (const c of obs.artifacts?.citations ?? []) citations.push({ ...c, row, page_index: null, span: null, search_index: null });
    if (!read || obs.status !== "ok") continue;
    const args = parseArgs(calls.get(obs.tool_call_id));
    let text = contentText(obs.output);
    const argPage = own(args, "page");
    let page = typeof argPage === "number" && Number.isInteger(argPage) ? argPage : null;
    let document = str(own(args, "document")) ?? str(own(args, "doc")) ?? str(own(args, "path"));
    let offset = 0;
    const header = READ_HEADER.exec(text);
    if (header) {
      document ??= header[1]!;
      page ??= Number(header[2]);
      offset = Number(header[3]);
      text = text.slice(header[0].length);
    }
    pages.push({ row, tool: obs.name, document, page, text, offset });
  }
  if (typeof report === "string") {
    try {
      report = JSON.parse(report);
    } catch {
      // A report that is not JSON is shown as the text it is.
    }
  }
  return { pages, citations, report, fields: fieldResults(reward, report) };
}

/** Highlight ranges for a page's text: citations on that document/page, clipped to the text. */
export function citedRanges(
  page: DocPage,
  citations: Array<Pick<DocumentsView["citations"][number], "document" | "page" | "start" | "end" | "text">>,
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const c of citations) {
    if (page.document !== null && c.document !== page.document) continue;
    if (c.page !== undefined && page.page !== null && c.page !== page.page) continue;
    let [s, e] = [c.start - page.offset, c.end - page.offset];
    // A citation of text not at its offsets (offsets into the whole document) is found by its text.
    if (c.text && page.text.slice(s, e) !== c.text) {
      const at = page.text.indexOf(c.text);
      if (at < 0) continue;
      [s, e] = [at, at + c.text.length];
    }
    s = Math.max(0, Math.min(s, page.text.length));
    e = Math.max(s, Math.min(e, page.text.length));
    if (e > s) ranges.push([s, e]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * Aligns two rollouts' turns for side-by-side view: longest common subsequence on each
 * turn's tool signature, so matching actions sit on the same line and extra turns get gaps.
 */
export function alignRows(a: string[], b: string[]): Array<{ a: number | null; b: number | null }> {
  const n = a.length;
  const m = b.length;
  // Large inputs fall back to index alignment: LCS is O(n·m) memory.
  if (n * m > 4_000_000) return Array.from({ length: Math.max(n, m) }, (_, i) => ({ a: i < n ? i : null, b: i < m ? i : null }));
  const dp = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: Array<{ a: number | null; b: number | null }> = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push({ a: i++, b: j++ });
    else if (j >= m || (i < n && dp[i + 1]![j]! >= dp[i]![j + 1]!)) out.push({ a: i++, b: null });
    else out.push({ a: null, b: j++ });
  }
  return out;
}

/**
 * Aligns up to four rollouts for side-by-side view: each other rollout is aligned to the
 * first (as `alignRows` does for two), then the pairings are merged on the first's rows.
 * Turns of the others that match no turn of the first get lines of their own just before
 * the next matched line, side by side where several rollouts have such turns there.
 * Each line holds one row index (or null) per rollout.
 */
export function alignMany(signatures: string[][]): Array<Array<number | null>> {
  const [first, ...others] = signatures;
  if (!first) return [];
  const n = first.length;
  // For each other rollout: its row matched to each row of the first, and its unmatched rows waiting before each.
  const matched = others.map(() => new Array<number | null>(n).fill(null));
  const before = others.map(() => Array.from({ length: n + 1 }, () => [] as number[]));
  others.forEach((sig, k) => {
    let next = 0;
    for (const p of alignRows(first, sig)) {
      if (p.a !== null) {
        next = p.a + 1;
        if (p.b !== null) matched[k]![p.a] = p.b;
      } else if (p.b !== null) before[k]![next]!.push(p.b);
    }
  });
  const out: Array<Array<number | null>> = [];
  for (let i = 0; i <= n; i++) {
    const waiting = before.map((b) => b[i]!);
    const height = waiting.reduce((m, w) => Math.max(m, w.length), 0);
    for (let j = 0; j < height; j++) out.push([null, ...waiting.map((w) => w[j] ?? null)]);
    if (i < n) out.push([i, ...matched.map((m) => m[i]!)]);
  }
  return out;
}

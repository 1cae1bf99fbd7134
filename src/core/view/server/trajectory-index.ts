import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { type LineRead, parseEventLine } from "../../runs/trajectory-reader";
import type { TrajectoryEvent } from "../../schema/trajectory";
import type { LineProblem, RowSummary, StepEntry, TrajectoryMeta } from "../protocol/trajectory";
import { ARTIFACT_BITS, type ArtifactKind, artifactFlags } from "../model/line-tag";
import { RowGrouper } from "../model/rows";
import { summariseRow } from "../model/summarise";
import { ReadFile } from "./file-calls";

// 1 MB reads keep the event loop free to answer requests while a large file is indexed.
const CHUNK = 1024 * 1024;
/** The first read is smaller still, so the first steps are answered as soon as possible. */
const FIRST_CHUNK = 256 * 1024;
const NEWLINE = 0x0a;
const MAX_PROBLEMS = 200;
const hasBom = (b: Buffer) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

/** One line of a trajectory: the event, or why it is not one (the CLI's reader and this index share it). */
export function parseLine(text: string): LineRead {
  return parseEventLine(text);
}

/** The entries of lines [a, b), from `parsed` (lines from `base` on; null for a blank line). */
function stepEntries(parsed: Array<LineRead | null>, base: number, a: number, b: number): StepEntry[] {
  const entries: StepEntry[] = [];
  for (let l = a; l < b; l++) {
    const p = parsed[l - base];
    if (!p) continue;
    entries.push(p.ok ? { line: l + 1, event: p.event } : { line: l + 1, problem: p.message });
  }
  return entries;
}

/** What else wants to see each event as the index reads it (the run's search index). */
export type EventSink = (event: TrajectoryEvent, row: number, line: number) => void;

/**
 * A trajectory file read in chunks, never whole: an index of line offsets, each line's
 * artifact flags, and the timeline rows. Every line is parsed and checked once while
 * indexing (so problems are counted exactly and JSON written with spaces indexes the same
 * as compact JSON); only offsets and flags are kept, and a row's events are read again
 * when it is asked for. `refresh()` continues from where the last scan stopped, so a file
 * being written (the live panel) grows the index. A last line without its newline counts
 * when it is a whole event (a writer that never wrote the newline); otherwise it is noted
 * as torn and waits for the rest. A leading byte order mark is skipped.
 */
export class TrajectoryIndex {
  private readonly lineStart: number[] = [];
  private readonly flags: number[] = [];
  private readonly grouper = new RowGrouper();
  private scanned = 0;
  private start: TrajectoryEvent | null = null;
  private end: TrajectoryEvent | null = null;
  private reward: TrajectoryEvent | null = null;
  /** An error event marked as the infrastructure's (sandbox lost, policy server down): the rollout is no score. */
  private infra = false;
  private readonly problems: LineProblem[] = [];
  private problemCount = 0;
  /** A last line without its newline that is not (yet) a whole event. */
  private torn: { line: number; bytes: number } | null = null;
  /** Where a last line taken without its newline ended: the newline that may follow is not a blank line. */
  private tailEnd = -1;
  /** Called with each event as it is indexed. */
  sink: EventSink | null = null;
  private readonly sceneRows: number[] = [];
  private refreshing: Promise<void> | null = null;
  /** When the policy was answering this rollout: each assistant message's [t - latency, t]. */
  readonly policyIntervals: Array<{ start: number; end: number }> = [];
  /** Each row's kind and tool names (`turn:run_tests,write_file`): what the compare view aligns on, without reading the file again. */
  private readonly signatures: string[] = [];
  /** Observations seen, and those the tool truncated (the readiness report counts them). */
  observations = 0;
  observationsTruncated = 0;

  /**
   * The first chunk's lines as indexing parsed them (null: a blank line), while the first screen
   * may ask for them: its page of rows and its first step are those lines, and reading them from
   * disk and parsing them twice more was most of its work. Filled only by the first chunk of a
   * `firstChunk` open (so at most FIRST_CHUNK bytes of lines), dropped when the rest is read.
   */
  private early: Map<number, LineRead | null> | null = null;
  private fillingEarly = false;

  private constructor(readonly path: string) {}

  /**
   * Reading past the first chunk waits for this (then it is dropped): the view server holds
   * the rest back while it answers the first screen, which needs the same CPU.
   */
  private restAfter: Promise<void> | null = null;

  /**
   * Opens and indexes a file. With `firstChunk`, resolves once the first chunk is
   * indexed (the first steps can be drawn) while the rest is indexed in the
   * background (once `restAfter` resolves, if given); `scanning` says whether that is still going on.
   */
  static async open(
    path: string,
    opts: { firstChunk?: boolean; sink?: EventSink; restAfter?: Promise<void> } = {},
  ): Promise<TrajectoryIndex> {
    const idx = new TrajectoryIndex(path);
    idx.sink = opts.sink ?? null;
    idx.restAfter = opts.restAfter ?? null;
    if (!opts.firstChunk) {
      await idx.refresh();
      return idx;
    }
    idx.early = new Map();
    idx.fillingEarly = true;
    let firstChunk: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      firstChunk = resolve;
    });
    const all = idx.refresh(firstChunk);
    await Promise.race([ready, all]);
    return idx;
  }

  /** Resolves when the scan running now (if any) has indexed the whole file. */
  async whenIndexed(): Promise<void> {
    await this.refreshing;
  }

  /** Whether a scan is running (the file is not fully indexed yet). */
  get scanning(): boolean {
    return this.refreshing !== null;
  }

  /** Indexes whatever was appended since the last scan. Concurrent calls share one scan. */
  refresh(onChunk?: () => void): Promise<void> {
    this.refreshing ??= this.scan(onChunk).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async scan(onChunk?: () => void): Promise<void> {
    // A file (or a growth) of one chunk or less is read synchronously: a run's rollouts are mostly
    // small, and four trips through the thread pool per file (open, stat, read, close) were most of
    // the time a 10,000-rollout dashboard spent indexing. Larger files are read a chunk at a time.
    if (statSync(this.path).size - this.scanned <= CHUNK) {
      const fd = openSync(this.path, "r");
      try {
        await this.scanWith(fstatSync(fd).size, (buf, pos) => Promise.resolve(readSync(fd, buf, 0, buf.length, pos)), onChunk);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const fh = await ReadFile.open(this.path);
    try {
      await this.scanWith(await fh.size(), (buf, pos) => fh.read(buf, pos), onChunk);
    } finally {
      await fh.close();
    }
  }

  /** Indexes bytes [scanned, size) read through `read`, a chunk at a time. */
  private async scanWith(size: number, read: (buf: Buffer, pos: number) => Promise<number>, onChunk?: () => void): Promise<void> {
    let pending: Buffer = Buffer.alloc(0);
    let pendingAt = this.scanned;
    let pos = this.scanned;
    while (pos < size) {
      const buf = Buffer.allocUnsafe(Math.min(pos === this.scanned && onChunk ? FIRST_CHUNK : CHUNK, size - pos));
      const bytesRead = await read(buf, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = pending.length ? Buffer.concat([pending, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let lineAt = 0;
      for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, lineAt)) {
        this.addLine(data.subarray(lineAt, nl), pendingAt + lineAt);
        lineAt = nl + 1;
      }
      // Copy the torn tail so the chunk buffer is not retained.
      pending = Buffer.from(data.subarray(lineAt));
      pendingAt += lineAt;
      this.scanned = pendingAt;
      // Only the first chunk's lines are kept (see `early`), and only until a further chunk is read.
      if (this.fillingEarly) this.fillingEarly = false;
      else this.early = null;
      // More to read: let the caller answer now. (A file read in one chunk finishes the scan first.)
      if (pos < size) onChunk?.();
      if (pos < size && this.restAfter) {
        const hold = this.restAfter;
        this.restAfter = null;
        await hold;
      }
    }
    this.scanned = pendingAt;
    this.torn = null;
    if (pending.length > 0 && pos >= size) {
      // The file ends without a newline: a whole event counts now; a torn one waits.
      const bom = pendingAt === 0 && hasBom(pending) ? 3 : 0;
      if (parseLine(pending.subarray(bom).toString("utf8")).ok) {
        this.addLine(pending, pendingAt);
        this.scanned = pendingAt + pending.length;
        this.tailEnd = this.scanned;
      } else this.torn = { line: this.lineStart.length + 1, bytes: pending.length };
    }
  }

  private addLine(input: Buffer, at: number): void {
    let bytes = input;
    let offset = at;
    if (offset === 0 && hasBom(bytes)) {
      bytes = bytes.subarray(3);
      offset = 3;
    }
    // The newline after a last line already taken without one.
    if (bytes.length === 0 && offset === this.tailEnd) return;
    const line = this.lineStart.length;
    if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 0x0d)) {
      // Blank lines keep their number (for problem positions) but join the previous row.
      this.lineStart.push(offset);
      this.flags.push(0);
      if (this.fillingEarly) this.early?.set(line, null);
      return;
    }
    const text = bytes.toString("utf8");
    const parsed = parseLine(text);
    // As entries() reads it: a line of spaces is a problem to the index, and nothing in a step.
    if (this.fillingEarly) this.early?.set(line, text.trim() === "" ? null : parsed);
    let type: string | null = null;
    let role: string | null = null;
    let flags = 0;
    if (parsed.ok) {
      const e = parsed.event;
      type = e.type;
      role = e.type === "message" ? e.role : null;
      if (e.type === "start") this.start ??= e;
      if (e.type === "end") this.end = e;
      if (e.type === "reward") this.reward = e;
      if (e.type === "error" && e.infra) this.infra = true;
      if (e.type === "message" && e.role === "assistant" && e.latency_ms !== undefined)
        this.policyIntervals.push({ start: e.t - e.latency_ms, end: e.t });
      if (e.type === "observation") {
        flags = artifactFlags(e.artifacts);
        this.observations++;
        if (e.truncated) this.observationsTruncated++;
      }
    } else {
      this.problemCount++;
      if (this.problems.length < MAX_PROBLEMS) this.problems.push({ line: line + 1, message: parsed.message });
    }
    this.lineStart.push(offset);
    this.flags.push(flags);
    this.grouper.add(line, type, role);
    const row = this.grouper.count - 1;
    while (this.signatures.length < this.grouper.count) this.signatures.push(`${this.grouper.kinds[this.signatures.length]}:`);
    if (parsed.ok && parsed.event.type === "tool_call") {
      const sig = this.signatures[row]!;
      this.signatures[row] = `${sig}${sig.endsWith(":") ? "" : ","}${parsed.event.name}`;
    }
    if (flags & ARTIFACT_BITS.scene && this.sceneRows[this.sceneRows.length - 1] !== row) this.sceneRows.push(row);
    if (parsed.ok) this.sink?.(parsed.event, row, line);
  }

  /** Whether the end event has been read (the rollout is finished). */
  get complete(): boolean {
    return this.end !== null;
  }

  get rowCount(): number {
    return this.grouper.count;
  }

  meta(file: string): TrajectoryMeta {
    const domain = this.start?.type === "start" ? this.start.env.domain : null;
    return {
      file,
      bytes: this.scanned,
      lines: this.lineStart.length,
      rows: this.grouper.count,
      complete: this.end !== null,
      indexing: this.scanning,
      domain,
      start: this.start,
      end: this.end,
      reward: this.reward,
      infra: this.infra,
      problems: this.problems.slice(0, MAX_PROBLEMS),
      problemCount: this.problemCount,
      torn: this.torn,
      sceneRows: this.sceneRows,
    };
  }

  /** The signature of every row indexed so far (see `signatures`), as summariseRow's kind and tools would give. */
  rowSignatures(): readonly string[] {
    return this.signatures;
  }

  rewardEvent(): TrajectoryEvent | null {
    return this.reward;
  }

  /** Rows [from, to) with the artifact flags of each, read in one pass over their bytes. */
  async entries(from: number, to: number): Promise<Array<{ row: number; entries: StepEntry[] }>> {
    to = Math.min(to, this.grouper.count);
    if (from >= to) return [];
    const firstLine = this.grouper.lines(from, this.lineStart.length)[0];
    const lastLine = this.grouper.lines(to - 1, this.lineStart.length)[1];
    const parsed = await this.parsedLines(firstLine, lastLine);
    const out: Array<{ row: number; entries: StepEntry[] }> = [];
    for (let row = from; row < to; row++) {
      const [a, b] = this.grouper.lines(row, this.lineStart.length);
      out.push({ row, entries: stepEntries(parsed, firstLine, a, b) });
    }
    return out;
  }

  /** The index of a row's first line. */
  firstLineOf(row: number): number {
    return this.grouper.lines(row, this.lineStart.length)[0];
  }

  /** A window of one row's lines: entries of lines [from, from + limit) within the row, and how many lines it has. */
  async stepWindow(row: number, from: number, limit: number): Promise<{ entries: StepEntry[]; total: number }> {
    const [a, b] = this.grouper.lines(row, this.lineStart.length);
    const first = Math.min(b, a + from);
    const last = Math.min(b, first + limit);
    if (first >= last) return { entries: [], total: b - a };
    return { entries: stepEntries(await this.parsedLines(first, last), first, first, last), total: b - a };
  }

  async rows(from: number, to: number): Promise<RowSummary[]> {
    return (await this.entries(from, to)).map(({ row, entries }) => summariseRow(row, this.grouper.kinds[row]!, entries));
  }

  /** Rows whose observations carry the given artifact, per the index flags. */
  rowsWith(kind: ArtifactKind, upTo = Number.POSITIVE_INFINITY): number[] {
    const bit = ARTIFACT_BITS[kind];
    const rows = new Set<number>();
    let row = 0;
    for (let l = 0; l < this.flags.length; l++) {
      while (row + 1 < this.grouper.count && this.grouper.firstLine[row + 1]! <= l) row++;
      if (row > upTo) break;
      if (this.flags[l]! & bit) rows.add(row);
    }
    return [...rows];
  }

  /**
   * The text of each listed line, read synchronously through one descriptor: a search
   * reply's snippets are a few kilobytes from the page cache, where an asynchronous
   * open, read and close per hit costs three trips through the thread pool.
   */
  lineTextsSync(lines: number[]): string[] {
    const fd = openSync(this.path, "r");
    try {
      return lines.map((l) => {
        const start = this.lineStart[l];
        if (start === undefined) return "";
        const buf = Buffer.allocUnsafe((this.lineStart[l + 1] ?? this.scanned) - start);
        const n = readSync(fd, buf, 0, buf.length, start);
        return buf.toString("utf8", 0, n).replace(/\r?\n$/, "");
      });
    } finally {
      closeSync(fd);
    }
  }

  /** Lines [from, to) parsed (null: blank), from `early` when it holds them all, else read again. */
  private async parsedLines(from: number, to: number): Promise<Array<LineRead | null>> {
    const early = this.early;
    if (early?.has(from) && early.has(to - 1)) {
      const out: Array<LineRead | null> = [];
      for (let l = from; l < to; l++) out.push(early.get(l) ?? null);
      return out;
    }
    return (await this.readLines(from, to)).map((text) => (text.trim() === "" ? null : parseLine(text)));
  }

  private async readLines(from: number, to: number): Promise<string[]> {
    const start = this.lineStart[from]!;
    const end = this.lineStart[to] ?? this.scanned;
    const fh = await ReadFile.open(this.path);
    try {
      const buf = Buffer.allocUnsafe(end - start);
      await fh.read(buf, start);
      const text = buf.toString("utf8");
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      return lines;
    } finally {
      await fh.close();
    }
  }
}

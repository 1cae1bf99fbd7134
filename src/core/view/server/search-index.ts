import { statSync } from "node:fs";
import { type HitKind, eachToken, eventText, snippet, tokens } from "../model/search-text";
import type { SearchHit } from "../protocol/dashboard";
import { parseLine, TrajectoryIndex } from "./trajectory-index";

const KINDS: HitKind[] = ["message", "tool_call", "observation"];
/** How often a finished rollout's size is checked again (a live one's is checked by every query). */
const FINISHED_RECHECK_MS = 1000;

/**
 * Word → number, shared by every file of a search so each word's text is held once; with
 * scratch arrays indexed by word number that files use one at a time while they add an
 * event or pack (both synchronous, so files being built side by side never share them).
 */
class Dictionary {
  readonly ids = new Map<string, number>();
  /** The event (by a number unique across files) a word was last added for: a word counts once per event. */
  lastEvent = new Uint32Array(1024);
  /** Per word: postings while a file is packed (then zeroed again). */
  counts = new Uint32Array(1024);
  private events = 0;

  get size(): number {
    return this.ids.size;
  }

  /** A fresh number for the next event added by any file. */
  nextEvent(): number {
    return ++this.events;
  }

  id(word: string): number {
    let wid = this.ids.get(word);
    if (wid === undefined) {
      wid = this.ids.size;
      this.ids.set(word, wid);
      if (wid >= this.counts.length) {
        const grow = (a: Uint32Array) => {
          const b = new Uint32Array(a.length * 2);
          b.set(a);
          return b;
        };
        this.counts = grow(this.counts);
        this.lastEvent = grow(this.lastEvent);
      }
    }
    return wid;
  }
}

/** A growable list of unsigned 32-bit numbers (a plain array of numbers costs several times more memory and GC). */
class U32List {
  data = new Uint32Array(4096);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const b = new Uint32Array(this.data.length * 2);
      b.set(this.data);
      this.data = b;
    }
    this.data[this.length++] = v;
  }

  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * The words of one rollout file: for each word, the events (by number) that contain it,
 * and for each event its row, line and kind. Text is not kept: a hit's snippet is read
 * back from the file. Built in one pass with the viewer's own index, so rows are the
 * viewer's rows: while reading, each (word, event) pair is appended to two flat lists;
 * packing groups them by word with a counting sort (events stay in order, so each word's
 * list comes out sorted) into typed arrays: word ids sorted, offsets, one flat list of
 * event numbers, a few bytes per posting.
 */
class FileWords {
  private building: { words: U32List; events: U32List } | null = { words: new U32List(), events: new U32List() };
  private wordIds = new Uint32Array(0);
  private offsets = new Uint32Array(1);
  private postings = new Uint32Array(0);
  private readonly rowList = new U32List();
  private readonly lineList = new U32List();
  private readonly kindList: number[] = [];
  rows = new Uint32Array(0);
  lines = new Uint32Array(0);
  kinds = new Uint8Array(0);
  /** The viewer's index of the same file, read in the same pass (rows and line offsets for snippets). */
  index!: TrajectoryIndex;

  static async build(file: string, dict: Dictionary): Promise<FileWords> {
    const words = new FileWords();
    words.index = await TrajectoryIndex.open(file, {
      sink: (e, row, line) => {
        const t = eventText(e);
        if (t) words.add(row, line, t.kind, t.text, dict);
      },
    });
    words.pack(dict);
    return words;
  }

  private add(row: number, line: number, kind: HitKind, text: string, dict: Dictionary): void {
    const id = this.rowList.length;
    this.rowList.push(row);
    this.lineList.push(line);
    this.kindList.push(KINDS.indexOf(kind));
    const b = this.building!;
    const stamp = dict.nextEvent();
    eachToken(text, (w) => {
      const wid = dict.id(w);
      if (dict.lastEvent[wid] === stamp) return;
      dict.lastEvent[wid] = stamp;
      b.words.push(wid);
      b.events.push(id);
    });
  }

  private pack(dict: Dictionary): void {
    const words = this.building!.words.view();
    const events = this.building!.events.view();
    const counts = dict.counts;
    const distinct: number[] = [];
    for (const w of words) if (counts[w]!++ === 0) distinct.push(w);
    const ids = Uint32Array.from(distinct).sort();
    this.offsets = new Uint32Array(ids.length + 1);
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
      const w = ids[i]!;
      this.offsets[i] = at;
      const n = counts[w]!;
      // From here on counts[w] is where the word's next event goes.
      counts[w] = at;
      at += n;
    }
    this.offsets[ids.length] = at;
    this.postings = new Uint32Array(at);
    for (let i = 0; i < words.length; i++) this.postings[counts[words[i]!]!++] = events[i]!;
    for (const w of ids) counts[w] = 0;
    this.wordIds = ids;
    this.rows = this.rowList.view().slice();
    this.lines = this.lineList.view().slice();
    this.kinds = Uint8Array.from(this.kindList);
    this.rowList.data = this.lineList.data = new Uint32Array(0);
    this.kindList.length = 0;
    this.building = null;
  }

  /** The events holding one word (sorted), by binary search over the word ids. */
  private list(wid: number): Uint32Array {
    let lo = 0;
    let hi = this.wordIds.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.wordIds[mid]!;
      if (v === wid) return this.postings.subarray(this.offsets[mid]!, this.offsets[mid + 1]!);
      if (v < wid) lo = mid + 1;
      else hi = mid - 1;
    }
    return new Uint32Array(0);
  }

  /** Events holding every word (sorted lists intersected by merging, rarest first). */
  find(wids: number[]): Uint32Array {
    const lists = wids.map((w) => this.list(w)).sort((a, b) => a.length - b.length);
    let acc = lists[0] ?? new Uint32Array(0);
    for (const l of lists.slice(1)) {
      // The shorter list's ids looked up in the longer one by binary search from where the last one was found.
      const out: number[] = [];
      let lo = 0;
      for (let i = 0; i < acc.length && lo < l.length; i++) {
        const id = acc[i]!;
        let hi = l.length - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if (l[mid]! < id) lo = mid + 1;
          else hi = mid - 1;
        }
        if (l[lo] === id) out.push(id);
      }
      acc = Uint32Array.from(out);
      if (!acc.length) break;
    }
    return acc;
  }

  /** Bytes held by the packed arrays. */
  get bytes(): number {
    return (
      this.wordIds.byteLength +
      this.offsets.byteLength +
      this.postings.byteLength +
      this.rows.byteLength +
      this.lines.byteLength +
      this.kinds.byteLength
    );
  }
}

export interface SearchResult {
  hits: SearchHit[];
  /** Events that matched in all (hits holds the first `limit`). */
  total: number;
  /** Rollout files searched. */
  files: number;
}

/**
 * Full-text search over every message, tool call and observation of a run's rollouts:
 * an inverted index per file, built on first use and rebuilt for a file whose size
 * changed (a live run). A query's words must all occur in one event.
 */
export class RunSearch {
  private readonly files = new Map<string, { built: Promise<FileWords>; size: number; ready: FileWords | null; checked: number }>();
  private readonly dict = new Dictionary();

  /**
   * A file's index when it is built and still current, without waiting: a query looks at
   * every file of the run, so this is its per-file cost. A rollout still being written
   * has its size checked by every query; a finished one (its end event read) is not
   * appended to again, so its size is checked at most once a second.
   */
  private current(file: string): FileWords | null {
    const known = this.files.get(file);
    if (!known?.ready) return null;
    const now = performance.now();
    if (known.ready.index.complete && now - known.checked < FINISHED_RECHECK_MS) return known.ready;
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return null;
    }
    if (size !== known.size) return null;
    known.checked = now;
    return known.ready;
  }

  /** The index of one file, built or rebuilt as needed. */
  private async words(file: string): Promise<FileWords> {
    const size = statSync(file).size;
    const known = this.files.get(file);
    if (known && known.size === size) return known.built;
    const built = FileWords.build(file, this.dict);
    const entry = { built, size, ready: null as FileWords | null, checked: performance.now() };
    this.files.set(file, entry);
    built.then(
      (w) => {
        entry.ready = w;
      },
      () => this.files.delete(file),
    );
    return built;
  }

  /** Builds (or refreshes) the index of every file; what the bench times. */
  async prepare(files: string[]): Promise<void> {
    for (const f of files) await this.words(f);
  }

  /** Bytes of the packed arrays, and words in the dictionary (for the bench). */
  async size(): Promise<{ bytes: number; words: number }> {
    let bytes = 0;
    for (const f of this.files.values()) bytes += (await f.built).bytes;
    return { bytes, words: this.dict.size };
  }

  async search(files: Array<{ abs: string; rel: string }>, query: string, limit: number): Promise<SearchResult> {
    const words = tokens(query);
    const hits: SearchHit[] = [];
    let total = 0;
    if (!words.length) return { hits, total, files: files.length };
    const lookUp = () => words.map((x) => this.dict.ids.get(x));
    let wids = lookUp();
    for (const { abs, rel } of files) {
      const w = this.current(abs) ?? (await this.words(abs));
      // A word not yet in the dictionary may have come with a file built just now.
      if (wids.includes(undefined)) wids = lookUp();
      if (wids.includes(undefined)) continue;
      const ids = w.find(wids as number[]);
      total += ids.length;
      const shown = ids.subarray(0, Math.max(0, limit - hits.length));
      if (!shown.length) continue;
      const texts = w.index.lineTextsSync(Array.from(shown, (id) => w.lines[id]!));
      shown.forEach((id, i) => {
        const p = parseLine(texts[i] ?? "");
        const t = p.ok ? eventText(p.event) : null;
        const s = t ? snippet(t.text, words) : { text: "", ranges: [] };
        hits.push({ file: rel, row: w.rows[id]!, line: w.lines[id]! + 1, kind: KINDS[w.kinds[id]!]!, snippet: s.text, ranges: s.ranges });
      });
    }
    return { hits, total, files: files.length };
  }
}

import { statSync } from "node:fs";
import { type HitKind, eventText, snippet, tokens } from "../model/search-text";
import type { SearchHit } from "../protocol/dashboard";
import { TrajectoryIndex } from "./trajectory-index";

const KINDS: HitKind[] = ["message", "tool_call", "observation"];

/**
 * The words of one rollout file: for each word, the events (by number) that contain it,
 * and for each event its row, line and kind. Text is not kept: a hit's snippet is read
 * back from the file. Built in one pass with the viewer's own index, so rows are the
 * viewer's rows.
 */
class FileWords {
  readonly postings = new Map<string, number[]>();
  readonly rows: number[] = [];
  readonly lines: number[] = [];
  readonly kinds: number[] = [];

  /** The viewer's index of the same file, read in the same pass (rows and line offsets for snippets). */
  index!: TrajectoryIndex;

  static async build(file: string): Promise<FileWords> {
    const words = new FileWords();
    words.index = await TrajectoryIndex.open(file, {
      sink: (e, row, line) => {
        const t = eventText(e);
        if (t) words.add(row, line, t.kind, t.text);
      },
    });
    return words;
  }

  private add(row: number, line: number, kind: HitKind, text: string): void {
    const id = this.rows.length;
    this.rows.push(row);
    this.lines.push(line);
    this.kinds.push(KINDS.indexOf(kind));
    for (const w of tokens(text)) {
      const list = this.postings.get(w);
      if (list) list.push(id);
      else this.postings.set(w, [id]);
    }
  }

  /** Events holding every word (sorted lists intersected, rarest first). */
  find(words: string[]): number[] {
    const lists: number[][] = [];
    for (const w of words) {
      const l = this.postings.get(w);
      if (!l) return [];
      lists.push(l);
    }
    lists.sort((a, b) => a.length - b.length);
    let acc = lists[0] ?? [];
    for (const l of lists.slice(1)) {
      const set = new Set(l);
      acc = acc.filter((id) => set.has(id));
      if (!acc.length) break;
    }
    return acc;
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
  private readonly files = new Map<string, Promise<FileWords>>();
  private readonly sizes = new Map<string, number>();

  /** The index of one file, built or rebuilt as needed. */
  private async words(file: string): Promise<FileWords> {
    const size = statSync(file).size;
    const known = this.files.get(file);
    if (known && this.sizes.get(file) === size) return known;
    const built = FileWords.build(file);
    this.files.set(file, built);
    this.sizes.set(file, size);
    built.catch(() => this.files.delete(file));
    return built;
  }

  /** Builds (or refreshes) the index of every file; what the bench times. */
  async prepare(files: string[]): Promise<void> {
    for (const f of files) await this.words(f);
  }

  /** Bytes of postings and per-event arrays, roughly (for the bench). */
  async approxBytes(): Promise<number> {
    let n = 0;
    for (const p of this.files.values()) {
      const w = await p;
      for (const [k, l] of w.postings) n += k.length * 2 + 48 + l.length * 8;
      n += w.rows.length * 24;
    }
    return n;
  }

  async search(files: Array<{ abs: string; rel: string }>, query: string, limit: number): Promise<SearchResult> {
    const words = tokens(query);
    const hits: SearchHit[] = [];
    let total = 0;
    if (!words.length) return { hits, total, files: files.length };
    for (const { abs, rel } of files) {
      const w = await this.words(abs);
      const ids = w.find(words);
      total += ids.length;
      for (const id of ids) {
        if (hits.length >= limit) break;
        const row = w.rows[id]!;
        const line = w.lines[id]!;
        const [entry] = (await w.index.stepWindow(row, line - w.index.firstLineOf(row), 1)).entries;
        const t = entry && "event" in entry ? eventText(entry.event) : null;
        const s = t ? snippet(t.text, words) : { text: "", ranges: [] };
        hits.push({ file: rel, row, line: line + 1, kind: KINDS[w.kinds[id]!]!, snippet: s.text, ranges: s.ranges });
      }
    }
    return { hits, total, files: files.length };
  }
}

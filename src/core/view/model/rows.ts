import type { RowKind } from "../protocol/trajectory";

/**
 * Groups trajectory lines into timeline rows as they are indexed, one line at a time,
 * so a growing file extends the rows without a rebuild. A row is the prompt (start and
 * the first system/user messages), a turn (an assistant message with the tool calls,
 * observations and user messages that follow it), or a reward, error or end event.
 */
export class RowGrouper {
  /** Index of each row's first line. */
  readonly firstLine: number[] = [];
  readonly kinds: RowKind[] = [];
  private lastKind: RowKind | null = null;

  add(line: number, type: string | null, role: string | null): void {
    const kind = this.kindFor(type, role);
    if (kind === null) return;
    this.firstLine.push(line);
    this.kinds.push(kind);
    this.lastKind = kind;
  }

  /** The kind of a new row this line opens, or null when it joins the current row. */
  private kindFor(type: string | null, role: string | null): RowKind | null {
    if (this.lastKind === null) return type === "reward" || type === "end" || type === "error" ? type : "prompt";
    switch (type) {
      case "start":
        return "prompt";
      case "message":
        return role === "assistant" ? "turn" : this.lastKind === "prompt" || this.lastKind === "turn" ? null : "turn";
      case "tool_call":
      case "observation":
        return this.lastKind === "turn" ? null : "turn";
      case "reward":
      case "error":
      case "end":
        return type;
      default:
        // An unknown or unreadable line stays with the row before it, where its problem shows.
        return null;
    }
  }

  get count(): number {
    return this.firstLine.length;
  }

  /** Line range [from, to) of a row, given the total line count. */
  lines(row: number, totalLines: number): [number, number] {
    const from = this.firstLine[row];
    if (from === undefined) throw new RangeError(`no row ${row} (the file has ${this.count})`);
    return [from, this.firstLine[row + 1] ?? totalLines];
  }
}

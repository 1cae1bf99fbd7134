import { type ReadableRollout, readableRollout } from "../../core/debug/readable";
import type { LaunchedRollout } from "./adapter";

/**
 * The rollout as a person reads it, served to the editor as DAP source references: a new
 * reference whenever the text changed (the editor keeps a reference's text once shown), the
 * last few kept so a frame of an earlier stop still opens.
 */
export class ReadableSources {
  private readonly kept: Array<{ ref: number; text: string }> = [];
  private lastRef = 0;

  /** The rollout's readable view now, and the source reference that serves its text. */
  view(r: LaunchedRollout): [ReadableRollout, number] {
    const d = r.debugger;
    const readable = readableRollout({ taskId: r.task.id, events: d.events, pause: d.pauseInfo, pending: d.pending });
    const last = this.kept.at(-1);
    if (last && last.text === readable.text) return [readable, last.ref];
    this.kept.push({ ref: ++this.lastRef, text: readable.text });
    if (this.kept.length > 8) this.kept.shift();
    return [readable, this.lastRef];
  }

  /** The text a reference serves; undefined once it is no longer kept. */
  content(ref: number | undefined): string | undefined {
    return this.kept.find((s) => s.ref === ref)?.text;
  }
}

/**
 * One frame's DOM work in two phases, every read before any write (the fastdom pattern). A page
 * with several virtual tables (the dashboard has three) used to let each measure its box and then
 * draw its rows in turn: the second table's measure forced a layout of the rows the first had just
 * drawn, and each forced layout is one of the whole page. Here every part scheduled for a frame
 * reads first (the first read lays out whatever changed since the last frame, once; the others find
 * the layout clean), then every part writes, and the browser lays the page out once more as it
 * paints the frame.
 */
export interface FramePart {
  /** Reads the layout (sizes, scroll offsets); writes nothing that changes the layout. */
  read(): void;
  /** Writes the DOM from what `read` found; reads nothing that needs the layout. */
  write(): void;
}

let parts = new Set<FramePart>();
let frame = 0;

/** Runs `part` in the next frame (once, however many times it is asked for before then). */
export function nextFrame(part: FramePart): void {
  parts.add(part);
  if (!frame) frame = requestAnimationFrame(flush);
}

/** Takes `part` out of the next frame (it drew itself meanwhile). */
export function skipFrame(part: FramePart): void {
  parts.delete(part);
}

function flush(): void {
  frame = 0;
  // Parts scheduled while this frame runs (a write that calls for another draw) go to the next one:
  // their read would come after this frame's writes and force a layout.
  const now = parts;
  parts = new Set();
  const each = (fn: (p: FramePart) => void) => {
    for (const p of now)
      try {
        fn(p);
      } catch (err) {
        // One part's failure neither stops the others nor leaves them half drawn.
        console.error("frame", err);
      }
  };
  each((p) => p.read());
  each((p) => p.write());
}

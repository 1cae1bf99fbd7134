/**
 * Names from a trajectory (file paths, tool, object and document names, task ids) shown
 * as what they are: bidirectional controls and other invisible control characters are
 * replaced by a visible mark of their code point, so "P\u202Egnp.701" cannot display as
 * "P107.png" and a name cannot reorder the text around it.
 */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function visibleName(s: string): string {
  return s.replace(INVISIBLE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/** The bidirectional controls: embeddings, overrides, isolates and the direction marks. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Free text from a trajectory or a report (search snippets, notes, diff lines, tool
 * output) with its bidirectional controls shown as their code points: an override cannot
 * display "exe.txt" for "txt.exe" nor reorder the lines around it. Right-to-left script
 * itself is left alone (the views isolate each piece of such text, so it stays in its
 * box); only the invisible controls are made visible.
 */
export function visibleBidi(s: string): string {
  return s.replace(BIDI, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

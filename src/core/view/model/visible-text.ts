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

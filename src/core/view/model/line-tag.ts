/**
 * What the index needs to know about a trajectory line without parsing it: its event
 * type, and whether an observation carries artifacts. Writers put `type` first (the
 * schema's key order), so the first bytes are enough; a line that does not start that
 * way is parsed in full by the caller. Quotes inside JSON strings are escaped, so the
 * artifact markers cannot be produced by model-written text.
 */
export interface LineTag {
  type: string | null;
  role: string | null;
}

const TYPE_PREFIX = /^\s*\{\s*"type"\s*:\s*"([a-z_]+)"/;
const ROLE = /"role"\s*:\s*"([a-z]+)"/;

/** Reads the event type (and a message's role) from the start of a line. */
export function tagFromPrefix(prefix: string): LineTag {
  const m = TYPE_PREFIX.exec(prefix);
  if (!m) return { type: null, role: null };
  const type = m[1] ?? null;
  const role = type === "message" ? (ROLE.exec(prefix)?.[1] ?? null) : null;
  return { type, role };
}

/** Byte markers of artifacts inside an observation line (see above why they are safe). */
export const ARTIFACT_MARKERS = {
  diff: '"diff":[',
  scene: '"scene":{',
  citations: '"citations":[',
  images: '"images":[',
} as const;
export type ArtifactKind = keyof typeof ARTIFACT_MARKERS;
export const ARTIFACT_BITS: Record<ArtifactKind, number> = { diff: 1, scene: 2, citations: 4, images: 8 };

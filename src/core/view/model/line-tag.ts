import type { Artifacts } from "../../schema/trajectory";

/** The artifacts an observation carries, as bits the index keeps per line (the event itself is read again on demand). */
export const ARTIFACT_BITS = { diff: 1, scene: 2, citations: 4, images: 8 } as const;
export type ArtifactKind = keyof typeof ARTIFACT_BITS;

export function artifactFlags(a: Artifacts | undefined): number {
  if (!a) return 0;
  let flags = 0;
  if (a.diff?.length) flags |= ARTIFACT_BITS.diff;
  if (a.scene) flags |= ARTIFACT_BITS.scene;
  if (a.citations?.length) flags |= ARTIFACT_BITS.citations;
  if (a.images?.length) flags |= ARTIFACT_BITS.images;
  return flags;
}

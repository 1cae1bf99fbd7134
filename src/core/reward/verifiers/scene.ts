import type { VerifierConfig } from "../../schema/verifier";
import { type DomainVerifier, NO_GRADED_FIELDS } from "../verifier-entry";

type SceneConfig = Extract<VerifierConfig, { type: "scene" }>;

/** The scene's checks in 3D space: the scene3d domain's plugin brings its verify (domains/scene3d/verifier.ts). */
export const sceneEntry: DomainVerifier<SceneConfig> = {
  type: "scene",
  domain: "scene3d",
  gradedFields: NO_GRADED_FIELDS,
  harbor: { kind: "none" },
};

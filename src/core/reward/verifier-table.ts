import type { Verifier } from "../model/domain";
import { harborVerifier } from "./harbor/verifier";
import type { VerifierConfig } from "../schema/verifier";
import type { VerifierEntry, VerifierTable } from "./verifier-entry";
import { exactVerifier } from "./verifiers/exact";
import { fieldsVerifier } from "./verifiers/fields";
import { judgeVerifier } from "./verifiers/judge";
import { numericVerifier } from "./verifiers/numeric";
import { sceneEntry } from "./verifiers/scene";
import { scriptVerifier } from "./verifiers/script";
import { testsVerifier } from "./verifiers/tests";

/**
 * Every verifier type of schema/verifier.ts and what the engine knows of it: how it scores,
 * the answer fields it grades (the audit), its Harbor grader (the export). A type without an
 * entry is a compile error; a new verifier is its file and its line here.
 */
export const VERIFIERS: VerifierTable = {
  tests: testsVerifier,
  exact: exactVerifier,
  numeric: numericVerifier,
  fields: fieldsVerifier,
  script: scriptVerifier,
  judge: judgeVerifier,
  scene: sceneEntry,
  harbor: harborVerifier,
};

/** The table's entry for a config, typed by it. */
export function verifierEntry<C extends VerifierConfig>(config: C): VerifierEntry<C> {
  return VERIFIERS[config.type] as unknown as VerifierEntry<C>;
}

/**
 * The implementation for a config type: the rollout's domain plugin's first (they take
 * precedence for that domain's rollouts: scene), else the table's own.
 */
export function findVerifier(type: string, domainVerifiers: readonly Verifier[] = []): Verifier | undefined {
  const own = domainVerifiers.find((v) => v.type === type);
  if (own) return own;
  const entry = Object.hasOwn(VERIFIERS, type) ? VERIFIERS[type as keyof VerifierTable] : undefined;
  return entry?.verify ? (entry as Verifier) : undefined;
}

/** The types rlenv itself can score (not those a domain plugin brings). */
export function registeredVerifierTypes(): string[] {
  return Object.values(VERIFIERS)
    .flatMap((e) => (e.verify ? [e.type] : []))
    .sort();
}

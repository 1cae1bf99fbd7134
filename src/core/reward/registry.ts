import type { Verifier } from "../model/domain";

/**
 * Verifier implementations by config type. The built-ins register themselves from
 * `reward/builtin.ts`; a domain adds its own (scene) with `registerVerifier` or through
 * its plugin's `verifiers`, which take precedence for that domain's rollouts.
 */
const verifiers = new Map<string, Verifier>();

export function registerVerifier(v: Verifier): void {
  verifiers.set(v.type, v);
}

export function findVerifier(type: string, domainVerifiers: readonly Verifier[] = []): Verifier | undefined {
  return domainVerifiers.find((v) => v.type === type) ?? verifiers.get(type);
}

export function registeredVerifierTypes(): string[] {
  return [...verifiers.keys()].sort();
}

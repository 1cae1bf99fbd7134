import type { Environment } from "../../model/environment";
import type { LoadedTask } from "../../model/environment";
import type { FieldSpec } from "../../schema/verifier";
import type { TrajectoryEvent } from "../../schema/trajectory";
import type { z } from "zod";

export type FieldSpecConfig = z.infer<typeof FieldSpec>;

export interface ComparatorContext {
  /** Dotted path of the field being compared. */
  field: string;
  /** The whole submitted answer (citations live beside the value). */
  answer: unknown;
  env: Environment;
  task: LoadedTask;
  events: readonly TrajectoryEvent[];
  signal: AbortSignal;
  timeoutMs: number;
}

export interface ComparatorResult {
  /** In [0, 1]. */
  score: number;
  passed?: boolean;
  reason?: string;
  details?: unknown;
}

/** Compares one submitted field with its gold value. May throw: the field then scores 0 with the error recorded. */
export type Comparator = (
  actual: unknown,
  expected: unknown,
  spec: FieldSpecConfig,
  ctx: ComparatorContext,
) => ComparatorResult | Promise<ComparatorResult>;

const comparators = new Map<string, Comparator>();

/** Add or replace a field comparator (the document domain adds money, percent, date, entities). */
export function registerComparator(name: string, fn: Comparator): void {
  comparators.set(name, fn);
}

export function findComparator(name: string): Comparator | undefined {
  return comparators.get(name);
}

export function registeredComparators(): string[] {
  return [...comparators.keys()].sort();
}

import type { ComparatorName } from "../../schema/comparators";
import { COMPARATORS } from "./table";
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

/** The comparator of this name in the table (comparators/table.ts); undefined for a name it lacks. */
export function findComparator(name: string): Comparator | undefined {
  return Object.hasOwn(COMPARATORS, name) ? COMPARATORS[name as ComparatorName] : undefined;
}

export function registeredComparators(): string[] {
  return Object.keys(COMPARATORS).sort();
}

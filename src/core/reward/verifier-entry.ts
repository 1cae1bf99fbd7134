import type { Verifier } from "../model/domain";
import type { LoadedTask } from "../model/environment";
import type { VerifierConfig, VerifierType } from "../schema/verifier";
import { expectedValue } from "./answer-path";

/** The config of one verifier type. */
export type ConfigOf<T extends VerifierType> = Extract<VerifierConfig, { type: T }>;

/** One field of the submitted answer a verifier grades: the audit perturbs it (a judge's field only reformatted). */
export interface GradedField {
  /** Dotted path in the answer; "" for the whole answer. */
  path: string;
  judge: boolean;
}

/** One field as Harbor's grader.py compares it (harbor/python/grader.py reads these). */
export interface GraderField {
  comparator: string;
  weight: number;
  expected: unknown;
  rel_tol?: number;
  abs_tol?: number;
  rounding?: "gold" | "none";
  cite?: boolean;
  normalize?: string;
}

/** What an exec grader may add to an exported task's tests/: files, and the Python programs rlenv ships for test.sh. */
export interface ExecGraderContext {
  task: LoadedTask;
  /** The verifier's place in the reward list: its files and its score variable carry it. */
  index: number;
  /** Adds a file under the task's tests/ (relative path). */
  addFile(rel: string, bytes: Buffer): void;
  /** Adds one of Harbor's shipped Python programs (harbor/python/) to tests/; returns its path in the container. */
  addProgram(name: "stdio_runner.py" | "script_score.py"): string;
}

/**
 * How a verifier is graded in an exported Harbor task: as fields of the answer by grader.py
 * (its spec written for the task), by test.sh lines that set the shell variable `score_<index>`
 * (null when this config cannot run outside rlenv), or not at all (graded by rlenv's own code only).
 */
export type HarborGrader<C extends VerifierConfig> =
  | { kind: "answer"; fields(config: C, task: LoadedTask): { mode: "mean" | "all"; fields: Record<string, GraderField> } }
  | { kind: "exec"; lines(config: C, ctx: ExecGraderContext): string[] | null }
  | { kind: "none" };

/** What the engine knows of one verifier type besides scoring: the fields it grades and its Harbor grader. */
export interface VerifierKnowledge<C extends VerifierConfig> {
  type: C["type"];
  /** The answer's fields this config grades; [] when it grades no submitted answer (files, a scene, a test run). */
  gradedFields(config: C, task: LoadedTask): GradedField[];
  harbor: HarborGrader<C>;
}

/** A verifier rlenv itself runs: its verify beside its knowledge. */
export type BuiltinVerifier<C extends VerifierConfig> = Verifier<C> & VerifierKnowledge<C>;

/** A verifier type whose implementation a domain plugin brings (scene: the scene3d domain's `verifiers`). */
export type DomainVerifier<C extends VerifierConfig> = VerifierKnowledge<C> & { domain: string; verify?: undefined };

export type VerifierEntry<C extends VerifierConfig = VerifierConfig> = BuiltinVerifier<C> | DomainVerifier<C>;

/** Entries by verifier type: every type of schema/verifier.ts must have one. */
export type VerifierTable = { [T in VerifierType]: VerifierEntry<ConfigOf<T>> };

export const NO_GRADED_FIELDS = (): GradedField[] => [];

/**
 * The knowledge of a verifier that compares one field of the answer (the whole answer when it
 * names none) with the task's target: that field is what it grades, and grader.py compares it
 * with `grader`'s comparator and options.
 */
export function oneAnswerField<C extends VerifierConfig & { field?: string | undefined }>(
  grader: (config: C) => { comparator: string } & Omit<GraderField, "comparator" | "weight" | "expected">,
): Pick<VerifierKnowledge<C>, "gradedFields" | "harbor"> {
  return {
    gradedFields: (config) => [{ path: config.field ?? "", judge: false }],
    harbor: {
      kind: "answer",
      fields: (config, task) => {
        const { comparator, ...options } = grader(config);
        // Keys in this order: the exported spec reads as it always has.
        const field: GraderField = { comparator, weight: 1, expected: expectedValue(task, config.field), ...options };
        return { mode: "mean", fields: { [config.field ?? ""]: field } };
      },
    },
  };
}

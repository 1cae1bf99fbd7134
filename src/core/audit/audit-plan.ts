import type { Environment } from "../model/environment";
import type { PlannedTurn } from "../policy/scripted";
import type { Limiter } from "../rollout/limiter";
import type { EnvironmentAudit } from "../schema/audit";
import type { BatchContext } from "./run-batch";
import type { LoadedTask } from "../model/environment";
import type { SandboxProvider } from "../model/sandbox";
import type { MutationResult } from "../schema/audit";
import type { CodeMutant, MutationWorkbench } from "./mutate-code";
import type { LoadedProbe } from "./probes";
import type { AuditItem, AuditOutcome } from "./run-batch";

export type Backend = "docker" | "process";

export interface AuditOptions {
  /** One provider per backend to audit on; the first is where mutants run. */
  providers: Array<{ backend: Backend; provider: SandboxProvider }>;
  runsDir: string;
  tasks?: string[];
  runs: number;
  mutants: number;
  seed: number;
  concurrency: number;
  probes: LoadedProbe[];
  /**
   * False: every oracle run, probe and mutant is a rollout of its own. Otherwise the screen
   * stands in where it can judge (see screen.ts), with the same verdicts.
   */
  screen?: boolean;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Tasks the audit covers: the named ones this environment has, else all. */
export function selected(env: Environment, only: string[] | undefined): LoadedTask[] {
  return only ? env.tasks.filter((t) => only.includes(t.id)) : env.tasks;
}

/** A variant id that keeps the task's id visible in the trajectory's file name. */
export const variantId = (task: string, kind: string, n: string | number) => `${task}--${kind}-${n}`;

/** One task's mutants (or perturbed answers or scenes), with what the screen found of them. */
export interface MutationPlan {
  task: LoadedTask;
  kind: MutationResult["kind"];
  items: Array<
    AuditItem & {
      operator: string;
      description: string;
      diff: string;
      expect: "reject" | "accept";
      answer?: unknown;
      code?: CodeMutant;
      /** The screen's replay of the real verifier scored it below the reference: killed without a rollout. */
      screenKilled?: boolean;
      /** The screen saw it finish and scored it at least the reference: a likely survivor of its rollout. */
      screenPassed?: boolean;
    }
  >;
  equivalentUpFront: number;
  note?: string;
  /** Why the screen did not stand in for this task's mutant rollouts, when it did not. */
  screenNote?: string;
  /** The oracle's further runs as screen reruns (the gold's files through the verifier again), when asked for and screened. */
  reruns?: Array<number | null>;
  /** What the gold and the mutants the screen let through compute (MutationWorkbench.outputs), taken while its workbench was open. */
  outputs?: { gold: string | null; mutants: Map<string, string | null> };
  /** A fresh workbench for the equivalence check of survivors (the one that made the mutants is closed). */
  bench?: () => Promise<MutationWorkbench>;
  /** The task's probes the screen rejected in this same workbench, after the mutants (absent: not screened here). */
  probesRejected?: string[];
}

/** Up to `max` of the items, the same ones for the same seed, in their order. */
export function shuffledPick<T>(items: T[], max: number, seed: number): T[] {
  if (items.length <= max) return items;
  // mulberry32: the same seed picks the same variants.
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
  }
  return idx
    .slice(0, max)
    .sort((a, b) => a - b)
    .map((i) => items[i] as T);
}

/** One map of a task's outcomes from several batches. */
export function mergeRuns(maps: Array<Map<string, AuditOutcome[]>>): Map<string, AuditOutcome[]> {
  const out = new Map<string, AuditOutcome[]>();
  for (const m of maps) for (const [id, list] of m) out.set(id, [...(out.get(id) ?? []), ...list]);
  return out;
}

/** A reward as the audit's problems show it. */
export function fmt(r: number | null): string {
  return r === null ? "not judged" : String(Math.round(r * 1000) / 1000);
}

/** What every phase of one environment's audit shares: its options, its tasks, and what the phases found so far. */
export interface Audit {
  env: Environment;
  opts: AuditOptions;
  tasks: LoadedTask[];
  notes: string[];
  phases: NonNullable<EnvironmentAudit["phases"]>;
  first: AuditOptions["providers"][number];
  /** Workbenches (a sandbox of a task's own, where the screen runs and mutants are made), a few at a time. */
  making: Limiter;
  ctxFor(provider: SandboxProvider, k?: number): BatchContext;
  /** Runs one phase, recording its wall time and how many rollouts it made. */
  timed<T>(phase: string, work: () => Promise<T>, rollouts: (r: T) => number): Promise<T>;
  log(line: string): void;
  /** Tasks whose oracle's further runs are screen reruns. */
  rerunnable: Set<string>;
  oracleRuns: Map<Backend, Map<string, AuditOutcome[]>>;
  reruns: Map<Backend, Map<string, Array<number | null>>>;
}

export type ProbeItem = AuditItem & { probe: string; task: LoadedTask; turns: PlannedTurn[] };
export type Provider = AuditOptions["providers"][number];

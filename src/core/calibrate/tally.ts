import path from "node:path";
import type { RolloutResult } from "../rollout/run-rollout";
import type { Agreement, Disagreement, NotGraded, Verdict } from "../schema/calibration";
import type { RewardComponent } from "../schema/trajectory";
import { agreementOf, type VerdictPair } from "./agreement";
import type { CalibrationLabel } from "./labels";

/** One label with the rollout that graded it. */
export interface GradedLabel {
  label: CalibrationLabel;
  rollout: RolloutResult;
  /** The text (or report) that was submitted, for the disagreement list. */
  submitted: unknown;
}

interface FieldOutcome {
  field: string;
  passed: boolean;
  reason?: string;
  error?: string;
  skipped?: string;
}

/** The per-field outcomes a `fields` component records in its details. */
function fieldOutcomes(c: RewardComponent): FieldOutcome[] {
  const fields = (c.details as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((f: Record<string, unknown>) => {
    if (typeof f?.field !== "string") return [];
    const skipped = (f.details as { skipped?: unknown } | undefined)?.skipped;
    return [
      {
        field: f.field,
        passed: f.passed === true,
        ...(typeof f.reason === "string" ? { reason: f.reason } : {}),
        ...(typeof f.error === "string" ? { error: f.error } : {}),
        ...(typeof skipped === "string" ? { skipped } : {}),
      },
    ];
  });
}

/** The verifier's reasons for a rollout, one clause per component (per field where it has fields). */
export function verifierReason(components: readonly RewardComponent[]): string {
  return components
    .map((c) => {
      const fields = fieldOutcomes(c);
      if (fields.length > 0)
        return fields.map((f) => `${c.name}.${f.field}: ${f.reason ?? f.error ?? (f.passed ? "passed" : "failed")}`).join("; ");
      return `${c.name}: ${c.reason ?? c.error ?? c.skipped ?? `score ${c.score}`}`;
    })
    .join("; ");
}

/** Why a rollout is no verdict at all: the machinery failed, it was not scored, or a component could not run (a judge with no endpoint). */
export function notGradedReason(r: RolloutResult): string | undefined {
  if (r.infra) return `infrastructure failure: ${r.reason ?? "no reason recorded"}`;
  if (r.reward === null) return `not scored (${r.status}${r.reason ? `: ${r.reason}` : ""})`;
  const skipped = (r.components ?? []).flatMap((c) => (c.skipped ? [c.skipped] : []));
  return skipped.length > 0 ? `not graded: ${skipped.join("; ")}` : undefined;
}

const verdictAt = (score: number, at: number): Verdict => (score >= at ? "accept" : "reject");

/** Cut for the report: the head and, where the answer usually is, the tail. */
export function excerpt(v: unknown, max = 600): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? "");
  if (s.length <= max) return s;
  const head = Math.floor(max / 3);
  return `${s.slice(0, head)} … ${s.slice(s.length - (max - head))}`;
}

export interface Tally {
  overall: Agreement;
  components: Array<Agreement & { name: string; type: string }>;
  fields: Array<Agreement & { component: string; field: string }>;
  groups: Array<Agreement & { group: string }>;
  disagreements: Disagreement[];
  notGraded: NotGraded[];
}

/** Pairs keyed by a name, in first-seen order. */
class PairsBy<K extends string> {
  readonly byKey = new Map<string, { meta: Record<K, string>; pairs: VerdictPair[] }>();
  add(meta: Record<K, string>, pair: VerdictPair): void {
    const key = Object.values(meta).join("\u0000");
    const slot = this.byKey.get(key) ?? { meta, pairs: [] };
    slot.pairs.push(pair);
    this.byKey.set(key, slot);
  }
  rows(): Array<Agreement & Record<K, string>> {
    return [...this.byKey.values()].map((s) => ({ ...s.meta, ...agreementOf(s.pairs) }));
  }
}

/** Confusion matrices overall, per component, per report field and per group, and every disagreement with its reason. */
export function tally(graded: readonly GradedLabel[], rewardAt: number, runDir: string): Tally {
  const overall: VerdictPair[] = [];
  const components = new PairsBy<"name" | "type">();
  const fields = new PairsBy<"component" | "field">();
  const groups = new PairsBy<"group">();
  const disagreements: Disagreement[] = [];
  const notGraded: NotGraded[] = [];
  for (const { label, rollout, submitted } of graded) {
    const rel = path.relative(runDir, rollout.file);
    const why = notGradedReason(rollout);
    if (why) {
      notGraded.push({ line: label.line, task: label.task, reason: why, rollout: rel });
      continue;
    }
    const comps = rollout.components ?? [];
    const base = {
      line: label.line,
      task: label.task,
      ...(label.group ? { group: label.group } : {}),
      reward: rollout.reward,
      answer: excerpt(submitted),
      rollout: rel,
    };
    const disagree = (scope: string, human: Verdict, verifier: Verdict, reason: string) => {
      if (human !== verifier)
        disagreements.push({ ...base, kind: verifier === "accept" ? "false-accept" : "false-reject", scope, human, verifier, reason });
    };
    const pair = { human: label.verdict, verifier: verdictAt(rollout.reward ?? 0, rewardAt) };
    overall.push(pair);
    if (label.group) groups.add({ group: label.group }, pair);
    disagree("reward", pair.human, pair.verifier, verifierReason(comps) || rollout.failure || "");
    for (const c of comps) {
      if (c.skipped) continue;
      components.add(
        { name: c.name, type: c.type },
        { human: label.verdict, verifier: (c.passed ?? c.score >= rewardAt) ? "accept" : "reject" },
      );
      for (const f of fieldOutcomes(c)) {
        if (f.skipped) continue;
        const human = label.fields[f.field] ?? label.verdict;
        const verifier: Verdict = f.passed ? "accept" : "reject";
        fields.add({ component: c.name, field: f.field }, { human, verifier });
        // Field verdicts of their own can disagree where the whole does not; without them the whole says it.
        if (label.fields[f.field] !== undefined) disagree(`${c.name}.${f.field}`, human, verifier, f.reason ?? f.error ?? "");
      }
    }
  }
  return {
    overall: agreementOf(overall),
    components: components.rows(),
    fields: fields.rows(),
    groups: groups.rows(),
    disagreements,
    notGraded,
  };
}

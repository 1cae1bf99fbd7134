import type { ReadinessReport, RunComparison } from "../schema/report";
import { bandChanges } from "./compare";

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(3));
const pct = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `${(100 * x).toFixed(1)}%`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The k values shown in text: 1, 2, 4, … and n (the JSON has every k). */
function shownKs(ks: number[]): number[] {
  const n = ks.length;
  return ks.filter((k) => k === n || (k & (k - 1)) === 0);
}

/** The report as lines for a terminal. */
export function renderReportText(r: ReadinessReport): string {
  const out: string[] = [];
  const ks = shownKs(r.ks);
  out.push(`readiness of ${r.run_id} (${r.env.name}, policy ${r.policy})`);
  out.push(
    `  rollouts: ${r.rollouts.total} (${r.rollouts.scored} scored, ${r.rollouts.infra_errors} infra errors not scored, ${r.rollouts.unscored} cancelled/interrupted)`,
  );
  out.push(`  reward: mean ${f3(r.reward.mean)}, std ${f3(r.reward.std)}; histogram [0,1] in tenths: ${r.reward.histogram.join(" ")}`);
  out.push(`  pass@k: ${ks.map((k) => `@${k} ${f3(r.pass_at_k[String(k)])}`).join("  ")}`);
  out.push(`  pass^k: ${ks.map((k) => `^${k} ${f3(r.pass_hat_k[String(k)])}`).join("  ")}`);
  const z = r.zero_variance;
  out.push(
    `  zero-variance groups: ${z.zero}/${z.groups} (${pct(z.fraction)}), costing ${z.rollouts} rollouts (${pct(z.rollouts_fraction)} of grouped ones)`,
  );
  out.push(`  bands: always ${r.bands.always}, learnable ${r.bands.learnable}, never ${r.bands.never}`);
  if (r.components.length > 0) {
    out.push("  components (mean, decides the shortfall):");
    for (const c of r.components) out.push(`    ${c.name} [${c.type}]: ${f3(c.mean)}, ${c.decides} (${pct(c.decides_fraction)})`);
  }
  if (r.failures.length > 0) {
    out.push("  failures:");
    for (const f of r.failures.slice(0, 10)) out.push(`    ${f.count}× ${f.reason}`);
  }
  if (r.not_run && r.not_run.length > 0) {
    out.push("  not run (scored 0, never a pass):");
    for (const f of r.not_run.slice(0, 10)) out.push(`    ${f.count}× ${f.reason}`);
  }
  out.push(
    `  truncated: ${r.truncation.rollouts} rollouts (${pct(r.truncation.rate)}); observations cut ${r.truncation.observations_truncated}/${r.truncation.observations}`,
  );
  const p = r.per_rollout;
  out.push(
    `  per rollout: turns ${f3(p.turns.mean)} (p50 ${p.turns.p50 ?? "-"}, max ${p.turns.max ?? "-"}), tokens in ${f3(p.prompt_tokens.mean)}, out ${f3(p.completion_tokens.mean)}`,
  );
  const t = r.time;
  const share = (ms: number) => pct(t.total_ms > 0 ? ms / t.total_ms : null);
  out.push(
    `  rollout time ${secs(t.total_ms)}: policy ${share(t.policy_ms)}, sandbox ${share(t.sandbox_ms)}, verify ${share(t.verify_ms)}, queue/other ${share(t.queue_ms)}`,
  );
  if (r.utilisation)
    out.push(
      `  policy utilisation ${pct(r.utilisation.policy)} of ${secs(r.utilisation.wall_ms)} wall, max queue ${r.utilisation.max_queue_depth}`,
    );
  if (r.concurrency.length > 0) {
    const last = r.concurrency[r.concurrency.length - 1]!;
    out.push(`  adaptive concurrency: ${r.concurrency.length} decisions, ended at ${last.limit} (${last.reason})`);
  }
  out.push("  tasks:");
  for (const task of r.tasks)
    out.push(
      `    ${task.task}: ${task.passed}/${task.n} passed, mean ${f3(task.mean_reward)}, std ${f3(task.std_reward)}, ${task.band}${task.zero_variance ? ", zero variance" : ""}${task.infra_errors ? `, ${task.infra_errors} infra` : ""}`,
    );
  return `${out.join("\n")}\n`;
}

export function renderComparisonText(c: RunComparison): string {
  const out = [`${c.b} against ${c.a}: ${c.verdict}`];
  out.push(
    `  sign test: ${c.sign_test.better} better, ${c.sign_test.worse} worse, ${c.sign_test.ties} tied; p = ${c.sign_test.p.toPrecision(3)}`,
  );
  const changed = bandChanges(c);
  if (changed.length > 0) {
    out.push("  band changes:");
    for (const t of changed) out.push(`    ${t.task}: ${t.a_band} → ${t.b_band} (${f3(t.a_mean)} → ${f3(t.b_mean)})`);
  }
  const moved = c.tasks.filter((t) => t.delta !== null && Math.abs(t.delta) > 1e-9).sort((x, y) => Math.abs(y.delta!) - Math.abs(x.delta!));
  if (moved.length > 0) {
    out.push("  largest per-task deltas:");
    for (const t of moved.slice(0, 10)) out.push(`    ${t.task}: ${t.delta! >= 0 ? "+" : ""}${t.delta!.toFixed(3)}`);
  }
  if (c.only_a.length > 0) out.push(`  only in ${c.a}: ${c.only_a.join(", ")}`);
  if (c.only_b.length > 0) out.push(`  only in ${c.b}: ${c.only_b.join(", ")}`);
  return `${out.join("\n")}\n`;
}

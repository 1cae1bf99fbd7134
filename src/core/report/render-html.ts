import type { ReadinessReport, RunComparison } from "../schema/report";
import { bandChanges } from "./compare";

/** Task ids and failure reasons come from the environment and the model: always escaped. */
const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(3));
const pct = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `${(100 * x).toFixed(1)}%`);

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`;
}

function reportSection(r: ReadinessReport): string {
  const t = r.time;
  const share = (ms: number) => pct(t.total_ms > 0 ? ms / t.total_ms : null);
  return [
    `<h2>${esc(r.run_id)}</h2><p>${esc(r.env.name)} · policy ${esc(r.policy)} · ${r.rollouts.total} rollouts, ${r.rollouts.scored} scored, ${r.rollouts.infra_errors} infra errors (not scored)</p>`,
    table(
      ["k", "pass@k", "pass^k"],
      r.ks.map((k) => [String(k), f3(r.pass_at_k[String(k)]), f3(r.pass_hat_k[String(k)])]),
    ),
    `<p>Reward mean ${f3(r.reward.mean)}, std ${f3(r.reward.std)}; histogram (tenths): ${r.reward.histogram.join(" ")}</p>`,
    `<p>Zero-variance groups ${r.zero_variance.zero}/${r.zero_variance.groups} (${pct(r.zero_variance.fraction)}), costing ${r.zero_variance.rollouts} rollouts. Bands: always ${r.bands.always}, learnable ${r.bands.learnable}, never ${r.bands.never}.</p>`,
    table(
      ["component", "type", "mean", "decides"],
      r.components.map((c) => [c.name, c.type, f3(c.mean), `${c.decides} (${pct(c.decides_fraction)})`]),
    ),
    table(
      ["failure", "count", "tasks"],
      r.failures.map((f) => [f.reason, String(f.count), f.tasks.join(", ")]),
    ),
    `<p>Truncated ${r.truncation.rollouts} (${pct(r.truncation.rate)}). Turns ${f3(r.per_rollout.turns.mean)}, tokens in ${f3(r.per_rollout.prompt_tokens.mean)}, out ${f3(r.per_rollout.completion_tokens.mean)} per rollout.</p>`,
    `<p>Rollout time: policy ${share(t.policy_ms)}, sandbox ${share(t.sandbox_ms)}, verify ${share(t.verify_ms)}, queue/other ${share(t.queue_ms)}. Policy utilisation ${pct(r.utilisation?.policy)}.</p>`,
    table(
      ["task", "n", "passed", "mean", "std", "band", "zero variance"],
      r.tasks.map((x) => [
        x.task,
        String(x.n),
        String(x.passed),
        f3(x.mean_reward),
        f3(x.std_reward),
        x.band,
        x.zero_variance ? "yes" : "",
      ]),
    ),
  ].join("\n");
}

function comparisonSection(c: RunComparison): string {
  return [
    `<h2>${esc(c.b)} against ${esc(c.a)}</h2><p>${esc(c.verdict)}; sign test ${c.sign_test.better} better, ${c.sign_test.worse} worse, p = ${c.sign_test.p.toPrecision(3)}</p>`,
    table(
      ["task", "a", "b", "delta", "band"],
      bandChanges(c).map((t) => [t.task, f3(t.a_mean), f3(t.b_mean), f3(t.delta), `${t.a_band} → ${t.b_band}`]),
    ),
  ].join("\n");
}

/** A standalone page (no script, nothing fetched) for `rlenv report --html FILE`. */
export function renderReportHtml(reports: ReadinessReport[], comparison: RunComparison | null): string {
  const style =
    "body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}";
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>Readiness</title><style>${style}</style></head><body><h1>Readiness</h1>${reports.map(reportSection).join("\n")}${comparison ? comparisonSection(comparison) : ""}</body></html>\n`;
}

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { parse } from "yaml";
import { JobManager } from "../../src/core/remote/jobs/jobs";
import { RunnerMetrics } from "../../src/core/remote/server/metrics";

/**
 * The Grafana dashboard and the alerting rules shipped in deploy/ ask only for metrics the
 * runner exports (a renamed metric would leave a panel empty and an alert silent), and the
 * dashboard shows every one of them.
 */
const DEPLOY = path.resolve(__dirname, "../../deploy");
const data = mkdtempSync(path.join(tmpdir(), "rlenv-deploy-"));
after(() => rmSync(data, { recursive: true, force: true }));

/** Metric name → type, as the runner's registry has them. */
async function exported(): Promise<Map<string, string>> {
  const m = new RunnerMetrics(new JobManager({ dataDir: data, version: "t", rlenvCommand: [], executors: {} }));
  return new Map((await m.registry.getMetricsAsJSON()).map((x) => [x.name, String(x.type)]));
}

/** The rlenv metric names an expression asks for, histogram series folded onto their metric. */
function namesIn(expr: string, types: Map<string, string>): { known: string[]; unknown: string[] } {
  const known: string[] = [];
  const unknown: string[] = [];
  for (const [token] of expr.matchAll(/\brlenv_[a-z0-9_]+/g)) {
    const base = token.replace(/_(bucket|sum|count)$/, "");
    if (types.has(token) && types.get(token) !== "histogram") known.push(token);
    else if (base !== token && types.get(base) === "histogram") known.push(base);
    else unknown.push(token);
  }
  return { known, unknown };
}

function dashboardExprs(): Array<{ panel: string; expr: string }> {
  const dash = JSON.parse(readFileSync(path.join(DEPLOY, "grafana/rlenv-dashboard.json"), "utf8")) as {
    panels: Array<{ title: string; targets?: Array<{ expr?: string }> }>;
  };
  assert.ok(dash.panels.length > 0, "the dashboard has panels");
  return dash.panels.flatMap((p) => {
    assert.ok(p.targets && p.targets.length > 0, `panel ${p.title} has a query`);
    return (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? "" }));
  });
}

test("every dashboard query names a metric the runner exports, and every exported metric has a panel", async () => {
  const types = await exported();
  const shown = new Set<string>();
  for (const { panel, expr } of dashboardExprs()) {
    const { known, unknown } = namesIn(expr, types);
    assert.deepEqual(unknown, [], `panel "${panel}": ${expr}`);
    assert.ok(known.length > 0 || /\bup\{/.test(expr), `panel "${panel}" names no metric: ${expr}`);
    for (const k of known) shown.add(k);
  }
  assert.deepEqual(
    [...types.keys()].filter((n) => !shown.has(n)),
    [],
    "metrics without a panel",
  );
});

test("every alerting rule's expression names metrics the runner exports (or the scrape's up)", async () => {
  const types = await exported();
  const rules = parse(readFileSync(path.join(DEPLOY, "prometheus/rules.yml"), "utf8")) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
  };
  const all = rules.groups.flatMap((g) => g.rules);
  assert.ok(all.length >= 5);
  for (const r of all) {
    const { known, unknown } = namesIn(r.expr, types);
    assert.deepEqual(unknown, [], `${r.alert}: ${r.expr}`);
    assert.ok(known.length > 0 || /\bup\{/.test(r.expr), `${r.alert} names no metric`);
  }
});

test("the check catches a name the runner does not export", async () => {
  const types = await exported();
  assert.deepEqual(namesIn("rate(rlenv_rollout_error_total[5m])", types).unknown, ["rlenv_rollout_error_total"]);
  // A histogram's series count; a gauge's name with a histogram suffix does not.
  assert.deepEqual(namesIn("rlenv_sandbox_start_seconds_bucket", types).known, ["rlenv_sandbox_start_seconds"]);
  assert.deepEqual(namesIn("rlenv_queue_depth_count", types).unknown, ["rlenv_queue_depth_count"]);
});

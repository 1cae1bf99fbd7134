import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { AuditView } from "../../../src/core/view/protocol/audit";
import type { Dashboard } from "../../../src/core/view/protocol/dashboard";
import { findRunAudit, readAuditReport, runAuditCandidates } from "../../../src/core/view/server/audit-report";
import { targetFor } from "../../../src/core/view/server/http-server";
import { ViewService } from "../../../src/core/view/server/view-service";
import { OLD_RUNS, writeAuditFolder } from "../../support/audit-report";
import { writeSyntheticRun } from "../../support/synthetic-run";

const tmp = (name: string) => mkdtempSync(path.join(tmpdir(), `rlenv-audit-view-${name}-`));

test("rlenv view: an audit folder or its audit.json opens the audit app rooted at the folder; run folders and rollouts as before", () => {
  const out = tmp("target");
  const { file } = writeAuditFolder(out);
  assert.deepEqual(targetFor(out), { root: out, app: "audit", target: "audit.json" });
  assert.deepEqual(targetFor(file), { root: out, app: "audit", target: "audit.json" });
  const run = path.join(out, "runs", "code-demo", "probes-docker");
  assert.equal(targetFor(run).app, "dashboard");
  assert.equal(targetFor(path.join(run, "rollouts", "fizzbuzz--probe-fake-report-0.jsonl")).app, "trajectory");
  // A folder with neither audit.json nor a run is still refused.
  assert.throws(() => targetFor(path.join(out, "runs")), /not a run folder/);
});

test("audit request: the report, and each trajectory it names found again under the moved folder's runs/ (null when gone)", async () => {
  const out = tmp("links");
  const { report } = writeAuditFolder(out);
  const view = (await new ViewService(out).handle("audit", { file: "audit.json" })) as AuditView;
  assert.equal(view.report.environments[0]?.tasks.length, 4);
  const links = new Map(view.links);
  assert.equal(
    links.get(`${OLD_RUNS}/code-demo/probes-docker/rollouts/stats-mean--probe-fake-report-0.jsonl`),
    "runs/code-demo/probes-docker/rollouts/stats-mean--probe-fake-report-0.jsonl",
  );
  assert.equal(
    links.get(`${OLD_RUNS}/code-demo/mutants-docker/rollouts/stats-mean--m3-0.jsonl`),
    "runs/code-demo/mutants-docker/rollouts/stats-mean--m3-0.jsonl",
  );
  assert.equal(links.get(`${OLD_RUNS}/code-demo/oracle-docker/rollouts/dates-1-gone.jsonl`), null);
  assert.equal(view.links.length, 6);
  // Written in place (not moved), the absolute paths are used as they are.
  const here = tmp("inplace");
  const moved = JSON.parse(readFileSync(path.join(out, "audit.json"), "utf8")) as typeof report;
  writeAuditFolder(here);
  const rebased = JSON.stringify({ ...moved, runs_dir: path.join(here, "runs") })
    .split(OLD_RUNS)
    .join(path.join(here, "runs"));
  writeFileSync(path.join(here, "audit.json"), rebased);
  const v2 = (await new ViewService(here).handle("audit", { file: "audit.json" })) as AuditView;
  assert.equal(v2.links.filter(([, rel]) => rel !== null).length, 5);
});

test("audit request: a trajectory outside the served folder is not linked, even when it exists", async () => {
  const outside = tmp("outside");
  writeSyntheticRun(outside, "r", [{ task: "secret", sample: 0, reward: 1 }]);
  const out = tmp("confined");
  const { report } = writeAuditFolder(out);
  report.environments[0]!.tasks[0]!.probes[0]!.trajectory = path.join(outside, "r", "rollouts", "secret-0.jsonl");
  writeFileSync(path.join(out, "audit.json"), JSON.stringify(report));
  const view = (await new ViewService(out).handle("audit", { file: "audit.json" })) as AuditView;
  assert.equal(new Map(view.links).get(path.join(outside, "r", "rollouts", "secret-0.jsonl")), null);
});

test("a bad audit.json is refused naming the file, the line and the field", async () => {
  const out = tmp("bad");
  const { report } = writeAuditFolder(out);
  const broken = JSON.parse(JSON.stringify(report)) as Record<string, unknown> & typeof report;
  (broken.environments[0]!.tasks[1] as unknown as Record<string, unknown>).ok = "yes";
  const text = `${JSON.stringify(broken, null, 2)}\n`;
  writeFileSync(path.join(out, "audit.json"), text);
  const line = text.split("\n").findIndex((l) => l.includes('"ok": "yes"')) + 1;
  assert.ok(line > 1);
  await assert.rejects(
    new ViewService(out).handle("audit", { file: "audit.json" }),
    (e: Error) => e.message === `audit.json:${line}: environments.0.tasks.1.ok: Invalid input: expected boolean, received string`,
  );
  writeFileSync(path.join(out, "audit.json"), "{ not json");
  assert.throws(() => readAuditReport(path.join(out, "audit.json"), "x/audit.json"), /^Error: x\/audit\.json: not JSON/);
});

test("dashboard: the audit of the run's environment found beside the run gives a verdict per task; the newest wins", async () => {
  const ws = tmp("dash");
  const run = writeSyntheticRun(path.join(ws, "runs"), "run-1", [
    { task: "fizzbuzz", sample: 0, reward: 1 },
    { task: "stats-mean", sample: 0, reward: 1 },
    { task: "other", sample: 0, reward: 0 },
  ]);
  assert.deepEqual(runAuditCandidates(run, "synthetic"), [
    path.join(run, "audit.json"),
    path.join(ws, "runs", "audit", "synthetic", "audit.json"),
    path.join(ws, "rlenv-audit", "audit.json"),
  ]);
  const problems: string[] = [];
  assert.equal(findRunAudit(run, "synthetic", problems), null);
  // An audit of another environment is not this run's.
  writeAuditFolder(path.join(ws, "rlenv-audit"), "code-demo");
  assert.equal(findRunAudit(run, "synthetic", problems), null);
  writeAuditFolder(path.join(ws, "rlenv-audit"), "synthetic");
  const found = findRunAudit(run, "synthetic", problems);
  assert.equal(found?.file, path.join(ws, "rlenv-audit", "audit.json"));
  assert.deepEqual(
    found?.tasks.map((t) => [t.task, t.verdict, t.findings, t.flaky, t.mutation_score]),
    [
      ["fizzbuzz", "passed", 0, false, 1],
      ["stats-mean", "failed", 1, false, 0.75],
      ["dates", "failed", 0, true, null],
      ["<img src=x>", "not-judged", 0, false, null],
    ],
  );
  // The editor's Audit profile wrote a newer one: it wins.
  const editor = path.join(ws, "runs", "audit", "synthetic");
  const { report } = writeAuditFolder(editor, "synthetic");
  report.created = "2026-03-01T00:00:00.000Z";
  report.environments[0]!.tasks[1]!.ok = true;
  report.environments[0]!.tasks[1]!.problems = [];
  writeFileSync(path.join(editor, "audit.json"), JSON.stringify(report));
  const dash = (await new ViewService(run).handle("run", { dir: "." })) as Dashboard;
  assert.equal(dash.audit?.file, path.join(editor, "audit.json"));
  assert.equal(dash.audit?.tasks.find((t) => t.task === "stats-mean")?.verdict, "passed");
  // A broken candidate is a problem line; the others still count.
  mkdirSync(run, { recursive: true });
  writeFileSync(path.join(run, "audit.json"), "[]");
  const again = (await new ViewService(run).handle("run", { dir: "." })) as Dashboard;
  assert.equal(again.audit?.file, path.join(editor, "audit.json"));
  assert.ok(
    again.problems.some((p) => p.startsWith(`audit: ${path.join(run, "audit.json")}`)),
    again.problems.join("\n"),
  );
});

test("dashboard: an audit of the same environment name but other content is stale for the run; one of its content, or one that records no hash, shows", async () => {
  const ws = tmp("dash-hash");
  // The synthetic run records its environment at content hash "h".
  const run = writeSyntheticRun(path.join(ws, "runs"), "run-1", [{ task: "fizzbuzz", sample: 0, reward: 1 }]);
  const out = path.join(ws, "rlenv-audit");
  const write = (hash: string | undefined, created: string) => {
    const { report } = writeAuditFolder(out, "synthetic");
    report.created = created;
    if (hash === undefined) delete report.environments[0]!.hash;
    else report.environments[0]!.hash = hash;
    writeFileSync(path.join(out, "audit.json"), JSON.stringify(report));
  };
  const dashboard = async () => (await new ViewService(run).handle("run", { dir: "." })) as Dashboard;

  write("0123456789abcdef-other", "2026-03-01T00:00:00.000Z");
  const stale = await dashboard();
  assert.equal(stale.audit, null, "an audit of other content is not this run's");
  assert.ok(
    stale.problems.some(
      (p) => p.includes(path.join(out, "audit.json")) && /audited at content 0123456789ab, this run's is h: not shown/.test(p),
    ),
    stale.problems.join("\n"),
  );
  write("h", "2026-03-01T00:00:00.000Z");
  const same = await dashboard();
  assert.equal(same.audit?.matched, "content");
  assert.deepEqual(same.problems, []);
  // A report written before audits kept the hash is still read, and matched by name alone.
  write(undefined, "2026-03-01T00:00:00.000Z");
  assert.equal((await dashboard()).audit?.matched, "name");
  // A run without a hash (an older run.json) matches by name too.
  const problems: string[] = [];
  write("h", "2026-03-01T00:00:00.000Z");
  assert.equal(findRunAudit(run, "synthetic", problems)?.matched, "name");
  assert.deepEqual(problems, []);
  // A stale audit beside a current one is passed over quietly: the current one shows.
  const editor = path.join(ws, "runs", "audit", "synthetic");
  const { report: current } = writeAuditFolder(editor, "synthetic");
  current.environments[0]!.hash = "h";
  current.created = "2026-01-01T00:00:00.000Z";
  writeFileSync(path.join(editor, "audit.json"), JSON.stringify(current));
  write("other", "2026-04-01T00:00:00.000Z");
  const both = await dashboard();
  assert.equal(both.audit?.file, path.join(editor, "audit.json"), "the older audit of this content wins over a newer one of other content");
  assert.deepEqual(both.problems, []);
});

test("rlenv view: an audit.json that is not JSON opens the audit app (which names the error), and a .json that is neither is refused", async () => {
  const out = tmp("broken");
  const bad = path.join(out, "audit.json");
  writeFileSync(bad, "{ this is not json\n");
  assert.deepEqual(targetFor(bad), { root: out, app: "audit", target: "audit.json" });
  await assert.rejects(new ViewService(out).handle("audit", { file: "audit.json" }), /audit\.json: not JSON/);
  const other = path.join(out, "notes.json");
  writeFileSync(other, "hello\n");
  assert.throws(() => targetFor(other), /neither a trajectory .* nor an audit report/);
  const traj = path.join(out, "one.json");
  writeFileSync(traj, '{"type":"start","t":0}\n');
  assert.equal(targetFor(traj).app, "trajectory");
});

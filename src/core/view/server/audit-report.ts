import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isNode, LineCounter, parseDocument } from "yaml";
import { AuditReport, type EnvironmentAudit } from "../../schema/audit";
import type { AuditView, RunAudit, TaskVerdict } from "../protocol/audit";
import { isInside } from "./confine";
import { AUDIT_FILE } from "./view-target";

// The audit file's name and how a path is told to be one live apart (the CLI needs them before it loads schemas).
export { AUDIT_FILE, auditFileOf } from "./view-target";

/** The line of a JSON value by its path (the deepest part of the path that exists), for error messages. */
function lineOf(text: string, at: PropertyKey[]): number | null {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  for (let p = at.map((k) => (typeof k === "symbol" ? String(k) : k)); ; p = p.slice(0, -1)) {
    const node = doc.getIn(p, true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    if (p.length === 0) return null;
  }
}

/** Reads and checks an audit.json; a bad one throws naming the file, the line and the field. */
export function readAuditReport(file: string, shown = file): AuditReport {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`${shown}: no such file`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${shown}: not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const r = AuditReport.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const line = lineOf(text, issue.path);
  throw new Error(`${shown}${line ? `:${line}` : ""}: ${issue.path.map(String).join(".") || "(top)"}: ${issue.message}`);
}

/** Every trajectory path an audit report names. */
export function auditTrajectories(report: AuditReport): string[] {
  const out = new Set<string>();
  for (const env of report.environments)
    for (const t of env.tasks) {
      for (const f of t.flakiness) for (const p of f.trajectories) out.add(p);
      for (const s of t.mutation?.survivors ?? []) out.add(s.trajectory);
      for (const m of t.mutation?.rejected_correct ?? []) out.add(m.trajectory);
      for (const p of t.probes) out.add(p.trajectory);
    }
  out.delete("");
  return [...out];
}

/**
 * Where a trajectory the report names is now: as written, or (a report folder moved or copied
 * elsewhere) at the same place under the report's own runs/ folder. Null when neither exists
 * inside the served root.
 */
export function locateTrajectory(
  p: string,
  report: AuditReport,
  auditDir: string,
  root: string,
  readable: (abs: string) => boolean,
): string | null {
  const candidates: string[] = [];
  if (path.isAbsolute(p)) {
    candidates.push(p);
    const under = path.relative(report.runs_dir, p);
    if (under && !under.startsWith("..") && !path.isAbsolute(under)) candidates.push(path.join(auditDir, "runs", under));
  } else candidates.push(path.resolve(auditDir, p), path.resolve(auditDir, "runs", p));
  for (const c of candidates)
    if (isInside(root, c) && existsSync(c) && readable(c)) return path.relative(root, c).split(path.sep).join("/") || ".";
  return null;
}

/** The audit app's view of one audit.json under the served root. */
export function auditView(root: string, rel: string, abs: string, readable: (abs: string) => boolean): AuditView {
  const report = readAuditReport(abs, rel);
  const dir = path.dirname(abs);
  return {
    file: rel,
    report,
    links: auditTrajectories(report).map((p) => [p, locateTrajectory(p, report, dir, root, readable)]),
  };
}

export function taskVerdicts(env: EnvironmentAudit): TaskVerdict[] {
  return env.tasks.map((t) => ({
    task: t.id,
    verdict: t.not_judged ? "not-judged" : t.ok ? "passed" : "failed",
    problems: t.not_judged ? [t.not_judged] : t.problems,
    mutation_score: t.mutation?.score ?? null,
    findings: t.probes.filter((p) => p.status === "finding").length,
    flaky: t.flakiness.some((f) => f.flaky) || t.parity?.agree === false,
  }));
}

/**
 * Where the run dashboard looks for the audit of a run's environment, in this order:
 * `<run>/audit.json` (a report copied into the run), `<runs>/audit/<env name>/audit.json` (the
 * editor's Audit profile writes there) and `<runs>/../rlenv-audit/audit.json` (the default
 * `rlenv audit --out`, run from the folder that holds runs/).
 */
export function runAuditCandidates(runDir: string, envName: string | null): string[] {
  const runs = path.dirname(runDir);
  return [
    path.join(runDir, AUDIT_FILE),
    ...(envName && /^[\w.-]+$/.test(envName) ? [path.join(runs, "audit", envName, AUDIT_FILE)] : []),
    path.join(path.dirname(runs), "rlenv-audit", AUDIT_FILE),
  ];
}

/**
 * The newest audit among the candidates that covers the run's environment (by name, and by
 * content hash where both the run and the report record one: an audit of the same name but
 * other content is stale for this run; a run without a record takes a report of one
 * environment), as verdicts per task. An unreadable candidate is a problem line, not a failure
 * of the dashboard; so is a stale one, when no other audit is found.
 */
export function findRunAudit(runDir: string, envName: string | null, problems: string[], envHash: string | null = null): RunAudit | null {
  let best: RunAudit | null = null;
  const stale: string[] = [];
  for (const file of runAuditCandidates(runDir, envName)) {
    if (!existsSync(file)) continue;
    let report: AuditReport;
    try {
      report = readAuditReport(file);
    } catch (err) {
      problems.push(`audit: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const named = envName
      ? report.environments.filter((e) => e.name === envName)
      : report.environments.length === 1
        ? report.environments
        : [];
    const env = named.find((e) => !envHash || !e.hash || e.hash === envHash);
    if (!env) {
      const other = named.find((e) => e.hash);
      if (other?.hash && envHash)
        stale.push(`audit: ${file}: ${other.name} was audited at content ${short(other.hash)}, this run's is ${short(envHash)}: not shown`);
      continue;
    }
    if (best && Date.parse(best.created) >= Date.parse(report.created)) continue;
    const matched = envHash && env.hash ? "content" : "name";
    best = { file, created: report.created, ok: env.ok, tasks: taskVerdicts(env), matched };
  }
  if (!best) problems.push(...stale);
  return best;
}

function short(hash: string): string {
  return hash.slice(0, 12);
}

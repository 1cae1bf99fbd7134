import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Environment } from "../model/environment";
import { createSandboxProvider } from "../sandbox/create-provider";
import { prepareEnvironment } from "../sandbox/select";
import type { SandboxProvider } from "../model/sandbox";
import { AuditReport } from "../schema/audit";
import { builtinProbesDir, loadProbes } from "./probes";
import { auditMarkdown } from "./report-md";
import { auditEnvironment } from "./run-audit";

type Backend = "docker" | "process";

export interface AuditFolderOptions {
  /** Where audit.json, audit.md and the trajectories (runs/, replaced) go. */
  out: string;
  /** docker, process, both, or auto (every backend that starts here). */
  sandbox: Backend | "both" | "auto";
  tasks?: string[];
  runs?: number;
  mutants?: number;
  seed?: number;
  concurrency: number;
  /** More probe folders, besides the built-in ones and the environment's audit/probes. */
  probeDirs?: string[];
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/**
 * The backends to audit on: the one named, or (auto, both) every one that starts here, docker
 * first. Throws when none starts (or both were asked and one did not); `errors` names the ones that did not.
 */
export async function openAuditProviders(
  sandbox: AuditFolderOptions["sandbox"],
  opts: { unsafeNoSandbox?: boolean } = {},
): Promise<{ providers: Array<{ backend: Backend; provider: SandboxProvider }>; errors: string[] }> {
  const want: Backend[] = sandbox === "docker" || sandbox === "process" ? [sandbox] : ["docker", "process"];
  const out: Array<{ backend: Backend; provider: SandboxProvider }> = [];
  const errors: string[] = [];
  for (const backend of want) {
    try {
      out.push({ backend, provider: await createSandboxProvider({ backend, ...(opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}) }) });
    } catch (e) {
      errors.push(`${backend}: ${(e as Error).message}`);
    }
  }
  if (out.length === 0 || (sandbox === "both" && out.length < 2)) {
    for (const p of out) await p.provider.shutdown();
    throw new Error(`no sandbox backend to audit on (${errors.join("; ")})`);
  }
  return { providers: out, errors };
}

/**
 * Readies the Docker backends for one environment before its rollouts, in the same room as
 * `rlenv run` ({@link prepareEnvironment}): a missing image is built first, its progress on `log`
 * (default stderr), or the error names the image and the command that builds it. The process
 * backend needs nothing here.
 */
export async function prepareAuditProviders(
  env: Environment,
  providers: ReadonlyArray<{ backend: Backend; provider: SandboxProvider }>,
  log?: (line: string) => void,
): Promise<void> {
  for (const p of providers) if (p.backend === "docker") await prepareEnvironment(p.provider, env, log ? { log } : {});
}

/**
 * The audit of one environment into a folder, as `rlenv audit DIR --out OUT` writes it: the
 * editor's Test Explorer profile "Audit" calls this, so both show the same verdicts from the
 * same engine (auditEnvironment) and the same audit.json.
 */
export async function auditIntoFolder(
  env: Environment,
  opts: AuditFolderOptions,
): Promise<{ report: AuditReport; json: string; md: string }> {
  const { probes, problems } = loadProbes([builtinProbesDir(), path.join(env.dir, "audit", "probes"), ...(opts.probeDirs ?? [])]);
  if (problems.length > 0) throw new Error(`bad probe files: ${problems.join("; ")}`);
  const runsDir = path.join(opts.out, "runs");
  rmSync(runsDir, { recursive: true, force: true });
  mkdirSync(runsDir, { recursive: true });
  const { providers } = await openAuditProviders(opts.sandbox);
  const runs = Math.max(1, opts.runs ?? 5);
  const mutants = opts.mutants ?? 20;
  const seed = opts.seed ?? 0;
  try {
    await prepareAuditProviders(env, providers, opts.log);
    const audit = await auditEnvironment(env, {
      providers,
      runsDir,
      ...(opts.tasks ? { tasks: opts.tasks } : {}),
      runs,
      mutants,
      seed,
      concurrency: opts.concurrency,
      probes,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
    const report = AuditReport.parse({
      version: 1,
      created: new Date().toISOString(),
      ok: audit.ok,
      options: { runs, mutants, seed, backends: providers.map((p) => p.backend), probes: probes.map((p) => p.name).sort() },
      runs_dir: runsDir,
      environments: [audit],
    });
    const json = path.join(opts.out, "audit.json");
    const md = path.join(opts.out, "audit.md");
    writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(md, auditMarkdown(report, opts.out));
    return { report, json, md };
  } finally {
    for (const p of providers) await p.provider.shutdown().catch(() => {});
  }
}

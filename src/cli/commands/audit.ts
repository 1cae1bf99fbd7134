import { collectTaskIds, unknownTaskIds, unknownTaskIdsMessage } from "../task-ids";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Command, Option } from "commander";
import { openAuditProviders, prepareAuditProviders } from "../../core/audit/audit-folder";
import { builtinProbesDir, loadProbes } from "../../core/audit/probes";
import { auditMarkdown } from "../../core/audit/report-md";
import { auditEnvironment } from "../../core/audit/run-audit";
import type { Environment } from "../../core/model/environment";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { expandHarborFolders } from "../../core/harbor/load-harbor";
import type { SandboxProvider } from "../../core/model/sandbox";
import { AuditReport, type EnvironmentAudit } from "../../core/schema/audit";
import { defaultValidateConcurrency } from "./validate-run";

type Backend = "docker" | "process";

interface AuditCliOptions {
  tasks?: string[];
  sandbox: string;
  json?: boolean;
  out: string;
  runs: number;
  mutants: number;
  seed: number;
  concurrency?: number;
  probes?: string[];
  unsafeNoSandbox?: boolean;
  screen: boolean;
}

/** The backends to audit on (core's choice), with the ones that did not start said on stderr unless auto. */
async function openProviders(opts: AuditCliOptions): Promise<Array<{ backend: Backend; provider: SandboxProvider }>> {
  const sandbox = opts.sandbox === "docker" || opts.sandbox === "process" || opts.sandbox === "both" ? opts.sandbox : "auto";
  const { providers, errors } = await openAuditProviders(sandbox, opts.unsafeNoSandbox ? { unsafeNoSandbox: true } : {});
  if (errors.length > 0 && opts.sandbox !== "auto") process.stderr.write(`rlenv audit: ${errors.join("; ")}\n`);
  return providers;
}

const int = (v: string) => {
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n) || n < 0) throw new Error(`not a count: ${v}`);
  return n;
};

/** One environment and its probes, loaded; its problems and the probes' said on stderr. `broken`: something did not load. */
function loadForAudit(dir: string, opts: AuditCliOptions) {
  const { env, problems } = loadEnvironment(dir);
  for (const p of problems) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
  if (!env) return { env: undefined, probes: [], broken: true };
  const { probes, problems: probeProblems } = loadProbes([
    builtinProbesDir(),
    path.join(env.dir, "audit", "probes"),
    ...(opts.probes ?? []),
  ]);
  for (const p of probeProblems) process.stderr.write(`rlenv audit: ${p}\n`);
  return { env, probes, broken: probeProblems.length > 0 };
}

/** Each task's verdict, one line on stderr. */
function printVerdicts(audit: EnvironmentAudit): void {
  for (const t of audit.tasks)
    process.stderr.write(
      `${t.not_judged ? "⊘" : t.ok ? "✓" : "✗"} ${audit.name}/${t.id}${t.not_judged ? ` — not judged here (${t.not_judged})` : t.ok ? "" : `: ${t.problems.join("; ")}`}\n`,
    );
}

/** What the audits of the folders gave: each environment's audit, those loaded, the probes used, and whether anything did not load. */
interface AuditedFolders {
  environments: EnvironmentAudit[];
  loaded: Environment[];
  probeNames: Set<string>;
  broken: boolean;
}

/** Audits each folder on the providers, in turn; the providers are shut down at the end. */
async function auditFolders(
  dirs: string[],
  opts: AuditCliOptions,
  providers: Array<{ backend: Backend; provider: SandboxProvider }>,
  runsDir: string,
): Promise<AuditedFolders> {
  const done: AuditedFolders = { environments: [], loaded: [], probeNames: new Set<string>(), broken: false };
  try {
    for (const dir of dirs) {
      const { env, probes, broken } = loadForAudit(dir, opts);
      if (broken) done.broken = true;
      if (!env) continue;
      done.loaded.push(env);
      for (const p of probes) done.probeNames.add(p.name);
      const unknown = (opts.tasks ?? []).filter((t) => !env.tasks.some((x) => x.id === t));
      if (opts.tasks && unknown.length === opts.tasks.length) continue;
      // The image is built before the rollouts (as `rlenv run` builds it), or the audit names it and goes on to the next folder.
      try {
        await prepareAuditProviders(env, providers);
      } catch (e) {
        process.stderr.write(`rlenv audit: ${(e as Error).message}\n`);
        done.broken = true;
        continue;
      }
      const audit = await auditEnvironment(env, {
        providers,
        runsDir,
        ...(opts.tasks ? { tasks: opts.tasks } : {}),
        runs: Math.max(1, opts.runs),
        mutants: opts.mutants,
        seed: opts.seed,
        concurrency: opts.concurrency ?? defaultValidateConcurrency(),
        probes,
        screen: opts.screen,
        log: opts.json ? undefined : (l) => process.stderr.write(`… ${l}\n`),
      });
      done.environments.push(audit);
      if (!opts.json) printVerdicts(audit);
    }
  } finally {
    for (const p of providers) await p.provider.shutdown().catch(() => {});
  }
  return done;
}

/** `rlenv audit DIRS`: audits each folder, writes audit.json and audit.md into --out, exits 1 unless every audit passed, 2 when a folder does not load or a --tasks id is not there. */
async function runAudit(given: string[], opts: AuditCliOptions): Promise<void> {
  // A folder of Harbor tasks is audited task by task (each is an environment of its own image).
  const dirs = expandHarborFolders(given);
  const out = path.resolve(opts.out);
  const runsDir = path.join(out, "runs");
  // The trajectories of the previous audit into this folder go: audit.json would no longer name them.
  rmSync(runsDir, { recursive: true, force: true });
  mkdirSync(runsDir, { recursive: true });
  const providers = await openProviders(opts);
  const { environments, loaded, probeNames, ...rest } = await auditFolders(dirs, opts, providers, runsDir);
  let broken = rest.broken;
  // A typo in --tasks must not audit nothing, or less than asked, and pass.
  const unknown = unknownTaskIds(opts.tasks, loaded);
  if (unknown.length > 0) {
    broken = true;
    process.stderr.write(unknownTaskIdsMessage("audit", unknown, loaded));
  }
  const report = AuditReport.parse({
    version: 1,
    created: new Date().toISOString(),
    ok: !broken && environments.length > 0 && environments.every((e) => e.ok),
    options: {
      runs: Math.max(1, opts.runs),
      mutants: opts.mutants,
      seed: opts.seed,
      backends: providers.map((p) => p.backend),
      probes: [...probeNames].sort(),
    },
    runs_dir: runsDir,
    environments,
  });
  writeFileSync(path.join(out, "audit.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(out, "audit.md"), auditMarkdown(report, out));
  if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stderr.write(`${report.ok ? "✓ audit passed" : "✗ audit failed"}: ${path.join(out, "audit.md")}\n`);
  // An environment that does not load, or a task id that is not there, is bad input (2); a verifier the audit fooled, a failed check (1).
  process.exitCode = broken ? 2 : report.ok ? 0 : 1;
}

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description(
      "Try to fool each task's verifier before anyone trains on it: oracle flakiness and backend parity, hack probes, mutants of the reference solution",
    )
    .argument("<dirs...>", "environment folders")
    .option("--tasks <ids...>", "only these task ids (spaces or commas between them)", collectTaskIds)
    .addOption(
      new Option("--sandbox <backend>", "docker, process, both, or auto (every backend that starts here)")
        .choices(["auto", "docker", "process", "both"])
        .default("auto"),
    )
    .option("--json", "print audit.json to stdout")
    .option("--out <dir>", "where audit.json, audit.md and the trajectories (runs/, replaced on each audit) go", "rlenv-audit")
    .option("--runs <n>", "oracle rollouts per task and backend (flakiness)", int, 5)
    .option("--mutants <m>", "most mutants per task", int, 20)
    .option("--seed <s>", "picks the mutants", int, 0)
    .option("--concurrency <n>", "concurrent rollouts (default: 2 per CPU, at least 4)", int)
    .option("--probes <dirs...>", "more probe files (besides the built-in ones and the environment's audit/probes)")
    .option("--unsafe-no-sandbox", "process backend: run without isolation when no namespaces are available")
    .option("--no-screen", "play every oracle run, probe and mutant as a rollout of its own (slower; the screen gives the same verdicts)")
    .action(runAudit);
}

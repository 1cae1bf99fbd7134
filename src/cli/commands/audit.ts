import { collectTaskIds, unknownTaskIds, unknownTaskIdsMessage } from "../task-ids";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { openAuditProviders } from "../../core/audit/audit-folder";
import { builtinProbesDir, loadProbes } from "../../core/audit/probes";
import { auditMarkdown } from "../../core/audit/report-md";
import { auditEnvironment } from "../../core/audit/run-audit";
import { type Environment, formatProblem, loadEnvironment } from "../../core/environment";
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

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description(
      "Try to fool each task's verifier before anyone trains on it: oracle flakiness and backend parity, hack probes, mutants of the reference solution",
    )
    .argument("<dirs...>", "environment folders")
    .option("--tasks <ids...>", "only these task ids (spaces or commas between them)", collectTaskIds)
    .option("--sandbox <backend>", "docker, process, both, or auto (every backend that starts here)", "auto")
    .option("--json", "print audit.json to stdout")
    .option("--out <dir>", "where audit.json, audit.md and the trajectories (runs/, replaced on each audit) go", "rlenv-audit")
    .option("--runs <n>", "oracle rollouts per task and backend (flakiness)", int, 5)
    .option("--mutants <m>", "most mutants per task", int, 20)
    .option("--seed <s>", "picks the mutants", int, 0)
    .option("--concurrency <n>", "concurrent rollouts (default: 2 per CPU, at least 4)", int)
    .option("--probes <dirs...>", "more probe files (besides the built-in ones and the environment's audit/probes)")
    .option("--unsafe-no-sandbox", "process backend: run without isolation when no namespaces are available")
    .option("--no-screen", "play every oracle run, probe and mutant as a rollout of its own (slower; the screen gives the same verdicts)")
    .action(async (given: string[], opts: AuditCliOptions) => {
      // A folder of Harbor tasks is audited task by task (each is an environment of its own image).
      const dirs = expandHarborFolders(given);
      const out = path.resolve(opts.out);
      const runsDir = path.join(out, "runs");
      // The trajectories of the previous audit into this folder go: audit.json would no longer name them.
      rmSync(runsDir, { recursive: true, force: true });
      mkdirSync(runsDir, { recursive: true });
      const providers = await openProviders(opts);
      const environments: EnvironmentAudit[] = [];
      const loaded: Environment[] = [];
      let broken = false;
      const probeNames = new Set<string>();
      try {
        for (const dir of dirs) {
          const { env, problems } = loadEnvironment(dir);
          for (const p of problems) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
          if (!env) {
            broken = true;
            continue;
          }
          loaded.push(env);
          const { probes, problems: probeProblems } = loadProbes([
            builtinProbesDir(),
            path.join(env.dir, "audit", "probes"),
            ...(opts.probes ?? []),
          ]);
          for (const p of probeProblems) process.stderr.write(`rlenv audit: ${p}\n`);
          if (probeProblems.length > 0) broken = true;
          for (const p of probes) probeNames.add(p.name);
          const unknown = (opts.tasks ?? []).filter((t) => !env.tasks.some((x) => x.id === t));
          if (opts.tasks && unknown.length === opts.tasks.length) continue;
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
          environments.push(audit);
          if (!opts.json) {
            for (const t of audit.tasks)
              process.stderr.write(
                `${t.not_judged ? "⊘" : t.ok ? "✓" : "✗"} ${audit.name}/${t.id}${t.not_judged ? ` — not judged here (${t.not_judged})` : t.ok ? "" : `: ${t.problems.join("; ")}`}\n`,
              );
          }
        }
      } finally {
        for (const p of providers) await p.provider.shutdown().catch(() => {});
      }
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
      process.exitCode = report.ok ? 0 : 1;
    });
}

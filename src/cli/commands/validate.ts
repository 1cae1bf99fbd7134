import { existsSync } from "node:fs";
import { collectTaskIds, unknownTaskIdsMessage, unknownTaskIds } from "../task-ids";
import path from "node:path";
import { type Command, Option } from "commander";
import { domainTaskProblems } from "../../core/domains/registry";
import type { Environment } from "../../core/model/environment";
import { formatProblem, type Problem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { expandHarborFolders } from "../../core/harbor/load-harbor";
import { authoringProblems } from "../../core/lint/authoring-checks";
import { startEarly, validateByRollouts } from "./validate-run";

export interface ValidateStaticResult {
  dir: string;
  name?: string;
  tasks: number;
  problems: Problem[];
}

/** Static validation of environment folders: schema, paths, tasks, then the domain's own checks of its task fields. */
export async function validateStatic(dirs: string[], onLoaded?: (env: Environment) => void): Promise<ValidateStaticResult[]> {
  return Promise.all(
    dirs.map((d) =>
      isolated(d, async () => {
        const { env, problems } = loadEnvironment(d);
        if (env) {
          onLoaded?.(env);
          problems.push(...(await domainTaskProblems(env)));
          // Mistakes only a rollout would show otherwise (fields no target has, answers the schema rejects, bad tool arguments).
          problems.push(...(await authoringProblems(env)));
        }
        return { dir: path.resolve(d), ...(env ? { name: env.manifest.name } : {}), tasks: env?.tasks.length ?? 0, problems };
      }),
    ),
  );
}

/** One folder's validation; should it throw, that folder reports an internal error and the others are still reported. */
export async function isolated(dir: string, validate: () => Promise<ValidateStaticResult>): Promise<ValidateStaticResult> {
  try {
    return await validate();
  } catch (e) {
    const file = path.resolve(dir);
    return {
      dir: file,
      tasks: 0,
      problems: [
        {
          file,
          line: 1,
          column: 1,
          endLine: 1,
          endColumn: 1,
          path: "",
          message: `internal error while validating this folder: ${(e as Error).message}`,
          severity: "error",
        },
      ],
    };
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Each environment's problems and its verdict line. With `--run` to follow, an environment
 * that passed the static checks gets its line from the run instead (a "✓" here would come
 * before the run's "✗" lines).
 */
function printStatic(results: ValidateStaticResult[], cwd: string, runFollows: boolean): void {
  for (const r of results) {
    for (const p of r.problems) process.stdout.write(`${formatProblem(p, cwd)}\n`);
    const errors = r.problems.filter((p) => p.severity === "error").length;
    const label = r.name ?? (path.relative(cwd, r.dir) || path.basename(r.dir));
    // No name: the manifest did not load, so no task count would mean anything.
    if (errors) process.stdout.write(`✗ ${label}: ${plural(errors, "problem")}${r.name ? `, ${plural(r.tasks, "task")} loaded` : ""}\n`);
    else if (!runFollows) process.stdout.write(`✓ ${label}: ${plural(r.tasks, "task")}\n`);
  }
}

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description("Check environment folders: manifest, tasks, paths (and with --run, oracle and nop rollouts)")
    .argument("[dirs...]", "environment folders", ["."])
    .option("--json", "print results as JSON")
    .option("--run", "also roll out the oracle (must reach the threshold) and nop (must not) on every task")
    .addOption(
      new Option(
        "--sandbox <backend>",
        "sandbox backend for --run: docker, process or auto; process isolates with bubblewrap, else unshare as root: RLENV_ISOLATION=bwrap|unshare forces one",
      )
        .choices(["auto", "docker", "process"])
        .default("auto"),
    )
    .option("--concurrency <n>", "concurrent rollouts for --run (default: 2 per CPU, at least 4)", (v) => Number.parseInt(v, 10))
    .option("--tasks <ids...>", "only these task ids (with --run; spaces or commas between them)", collectTaskIds)
    .option(
      "--runs <dir>",
      "with --run: keep the oracle and nop runs in this folder (default: a temporary one, removed when every task passed)",
    )
    .option("--unsafe-no-sandbox", "with --run and the process backend: run without isolation when no namespaces are available")
    .option("--no-build", "with --run on docker: do not build a missing sandbox image; fail naming the command that builds it")
    .action(
      async (
        given: string[],
        opts: {
          json?: boolean;
          run?: boolean;
          sandbox: string;
          concurrency?: number;
          tasks?: string[];
          unsafeNoSandbox?: boolean;
          runs?: string;
          build?: boolean;
        },
      ) => {
        // A folder of Harbor tasks is validated task by task: each is an environment with its own image.
        const dirs = expandHarborFolders(given);
        // With --run, sandboxes start while the static checks run (see validate-run.ts).
        const early = opts.run ? startEarly(opts) : undefined;
        const results = await validateStatic(dirs, early?.loaded);
        const cwd = process.cwd();
        let failed = results.some((r) => r.problems.some((p) => p.severity === "error"));
        // Results go to stdout (problems, one verdict line per environment); notes to stderr.
        if (!opts.json) printStatic(results, cwd, opts.run === true && !failed);
        const unknown = early && !failed ? unknownTaskIds(opts.tasks, early.envs.values()) : [];
        // A --tasks id no environment has is misuse (2), as in run and audit.
        const misuse = unknown.length > 0;
        if (misuse) {
          failed = true;
          process.stderr.write(unknownTaskIdsMessage("validate", unknown, early?.envs.values() ?? []));
        }
        let runReport: unknown;
        if (early && !failed) {
          // With --json a failure of the runs is part of the document: stdout always holds one.
          const runs = validateByRollouts(dirs, opts, early);
          const r = opts.json ? await runs.catch((e: unknown) => ({ ok: false, report: { error: (e as Error).message } })) : await runs;
          runReport = r.report;
          failed ||= !r.ok;
        } else if (early) {
          await (await early.provider.catch(() => null))?.shutdown();
        }
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify({ ok: !failed, environments: results, ...(runReport ? { run: runReport } : {}) }, null, 2)}\n`,
          );
        }
        // A folder that is not there is bad input (2), as in every command; problems in one that is, a failed check (1).
        process.exitCode = misuse || given.some((d) => !existsSync(d)) ? 2 : failed ? 1 : 0;
      },
    );
}

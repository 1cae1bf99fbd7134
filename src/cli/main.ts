import { Command, CommanderError } from "commander";
import { sweepProcessOrphans } from "../core/sandbox/process/sweep";
import { COMMANDS } from "./commands";
import { VERSION } from "./version";

/** The exit codes every command keeps to, and where to start. */
const HELP_AFTER = `
Exit codes (every command):
  0  success
  1  a check failed: a validation problem, a task below its threshold, a failed audit, rows left out of an export
  2  misuse or bad input: an unknown option, a missing file, a manifest or run folder that does not read

Examples:
  rlenv new code my-env                      scaffold an environment that passes
  rlenv validate my-env --run                check it: the oracle passes, nop fails
  rlenv run my-env --policy openai --model Qwen/Qwen3-8B --base-url http://127.0.0.1:8000/v1 -k 4
  rlenv run -c run.yaml -k 8                 a run's options from a file (docs/reference.md), flags override it
  rlenv view runs/<run-id>                   the run's dashboard in a browser
  rlenv export runs/<run-id> --format rl-jsonl --out run.jsonl
  rlenv jobs cancel <job-id> --runner gpu1
`;

/** `rlenv`: thin over core; each subcommand registers itself from its own file. */
async function main(argv: string[]): Promise<void> {
  const program = new Command("rlenv")
    .description("RL Env Studio: author, validate and run RL environments for LLM post-training")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureHelp({ sortSubcommands: true })
    .addHelpText("after", HELP_AFTER)
    // Commander's own errors (an unknown option, a missing argument) are misuse: exit 2, as documented
    // above, not commander's default 1. Subcommands made after this inherit it.
    .exitOverride();
  for (const register of COMMANDS) register(program);
  // Whatever a killed run of the process backend left (sandbox folders, cgroups) goes at the
  // next command of any kind, not only at the next process-backend run.
  try {
    sweepProcessOrphans();
  } catch {}
  await program.parseAsync(argv);
}

main(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    // Commander has printed the message (or the help, or the version) itself.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
    return;
  }
  process.stderr.write(`rlenv: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.RLENV_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = process.exitCode || 2;
});

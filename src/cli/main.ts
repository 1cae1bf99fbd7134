import { Command } from "commander";
import { sweepProcessOrphans } from "../core/sandbox/process/sweep";
import { COMMANDS } from "./commands";
import { VERSION } from "./version";

/** `rlenv`: thin over core; each subcommand registers itself from its own file. */
async function main(argv: string[]): Promise<void> {
  const program = new Command("rlenv")
    .description("RL Env Studio: author, validate and run RL environments for LLM post-training")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureHelp({ sortSubcommands: true });
  for (const register of COMMANDS) register(program);
  // Whatever a killed run of the process backend left (sandbox folders, cgroups) goes at the
  // next command of any kind, not only at the next process-backend run.
  try {
    sweepProcessOrphans();
  } catch {}
  await program.parseAsync(argv);
}

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`rlenv: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.RLENV_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = process.exitCode || 2;
});

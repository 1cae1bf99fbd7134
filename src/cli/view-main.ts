import { Command } from "commander";
import { registerView } from "./commands/view";
import { VERSION } from "./version";

/** When the sandbox orphan sweep runs, after start: once the first page has its first screen. */
const SWEEP_AFTER_MS = 3000;

/**
 * `rlenv view` on its own (dist/cli-view.js, chosen by the launcher): the same command as in
 * the full CLI, registered from the same file, in a bundle of the viewer's server alone. The
 * full CLI bundle holds the engine, Docker client, document parsers and every schema; loading
 * it cost several hundred ms before the server could listen, all of it on the way to the
 * first painted step.
 */
async function main(argv: string[]): Promise<void> {
  const program = new Command("rlenv").version(VERSION, "-V, --version").showHelpAfterError("(run with --help for usage)");
  registerView(program);
  await program.parseAsync(argv);
  // As every rlenv command does (see main.ts), but a few seconds after the server listens: just
  // after, it ran (~10 ms of CPU, 20-30 ms under load) while the API half loaded and the first
  // screen was read, the two things the page's init data block waits on.
  // Its module (and the cgroup and process readers it imports) loads then too, not before listen.
  setTimeout(() => {
    import("../core/sandbox/process/sweep").then((m) => m.sweepProcessOrphans()).catch(() => {});
  }, SWEEP_AFTER_MS).unref();
}

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`rlenv: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.RLENV_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = process.exitCode || 2;
});

import type { Argument, Command } from "commander";
import { runnerClientFor } from "../core/remote/client/client-config";

/**
 * Words a completion script asks the program for while completing, because they are not known
 * when the script is written: the job ids of the configured runner. The scripts call the hidden
 * `rlenv __complete KIND -- WORDS…` with the words typed so far; it prints one word a line, and
 * nothing at all when it cannot answer (no runner configured, the runner down or slow), so the
 * shell offers nothing rather than file names that are never job ids.
 */

export const SOURCES = ["jobs"] as const;
export type CompletionSource = (typeof SOURCES)[number];

/** How long completion waits for the runner: a TAB must not hang on a runner that does not answer. */
export const SOURCE_TIMEOUT_MS = 1500;

/** Where an argument's values come from while completing. */
export interface ArgumentSource {
  source: CompletionSource;
  /**
   * The argument takes these values only after this first argument (`jobs cancel ID`: the id after
   * the verb); after any other first argument it takes nothing (`jobs ID` is the whole command).
   */
  afterFirst?: string;
}

const SOURCE_OF = new WeakMap<Argument, ArgumentSource>();

/**
 * Marks an argument as a job id of the runner (`jobs ID`, `jobs cancel ID`, `logs ID`, `pull ID`);
 * `afterFirst` when it is one only after that first argument.
 */
export function jobIdArgument<A extends Argument>(arg: A, opts: { afterFirst?: string } = {}): A {
  SOURCE_OF.set(arg, { source: "jobs", ...opts });
  return arg;
}

/** Where an argument's values come from while completing, if it was marked. */
export function sourceOf(arg: Argument): ArgumentSource | undefined {
  return SOURCE_OF.get(arg);
}

/**
 * The `--runner` typed on the line: `--runner X`, `--runner=X`, and bash's split of the latter
 * (`--runner`, `=`, `X`). The last one wins, as commander reads it.
 */
export function runnerFromWords(words: readonly string[]): string | undefined {
  let runner: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? "";
    if (w.startsWith("--runner=")) runner = w.slice("--runner=".length);
    else if (w === "--runner") {
      let next = i + 1;
      if (words[next] === "=") next++;
      if (words[next] !== undefined) runner = words[next];
      i = next;
    }
  }
  return runner === "" ? undefined : runner;
}

/** The words of a source, newest job first; an empty list when they cannot be had in time. */
export async function sourceWords(source: CompletionSource, words: readonly string[]): Promise<string[]> {
  if (source !== "jobs") return [];
  try {
    const client = runnerClientFor(runnerFromWords(words));
    const jobs = await client.jobs(AbortSignal.timeout(SOURCE_TIMEOUT_MS));
    return [...jobs].sort((a, b) => b.created.localeCompare(a.created)).map((j) => j.id);
  } catch {
    // Completion never prints an error: no runner, a runner down or slow, a bad token all offer nothing.
    return [];
  }
}

/** `rlenv __complete KIND -- WORDS…`: hidden, for the completion scripts only. */
export function registerCompleteSource(program: Command): void {
  program
    .command("__complete", { hidden: true })
    .description("words for the completion scripts (job ids of the runner)")
    .argument("<source>")
    .argument("[words...]")
    .action(async (source: string, words: string[] | undefined) => {
      const known = (SOURCES as readonly string[]).includes(source) ? (source as CompletionSource) : undefined;
      const out = known ? await sourceWords(known, words ?? []) : [];
      if (out.length) process.stdout.write(`${out.join("\n")}\n`);
    });
}

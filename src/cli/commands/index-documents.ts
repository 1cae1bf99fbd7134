import type { Command } from "commander";
import { formatProblem } from "../../core/model/problem";
import { loadEnvironment } from "../../core/environment/load-environment";
import { prepareDocuments } from "../../core/domains/document/prepare";

/**
 * `rlenv index DIR…`: parse and index each environment's documents ahead of a run, in
 * worker threads on every core, into the content-hash cache that rollouts then read.
 */
export function registerIndex(program: Command): void {
  program
    .command("index")
    .description(
      "Parse and index an environment's documents ahead of a run (worker threads on every core; cached by content hash in $RLENV_CACHE_DIR/documents)",
    )
    .argument("<dirs...>", "environment folders")
    .action(async (dirs: string[]) => {
      let failed = 0;
      let unreadable = 0;
      for (const dir of dirs) {
        const { env, problems } = loadEnvironment(dir);
        const errors = problems.filter((p) => p.severity === "error");
        if (!env || errors.length > 0) {
          for (const p of errors) process.stderr.write(`${formatProblem(p, process.cwd())}\n`);
          unreadable++;
          continue;
        }
        if (!env.paths.documents) {
          process.stderr.write(`${dir}: no 'documents' folder in the manifest; nothing to index\n`);
          continue;
        }
        const tty = process.stderr.isTTY;
        const corpus = await prepareDocuments(env, (m) => {
          // On a terminal, progress lines overwrite each other; the last line stays.
          if (tty && m.includes(" parsed")) process.stderr.write(`\r\x1b[2K${env.manifest.name}: ${m}`);
          else process.stderr.write(`${tty ? "\r\x1b[2K" : ""}${env.manifest.name}: ${m}\n`);
        });
        if (corpus?.problems.length) failed++;
      }
      // An environment that does not load is bad input (2, the others are still indexed); documents that did not parse, 1.
      if (unreadable) process.exitCode = 2;
      else if (failed) process.exitCode = 1;
    });
}

/**
 * What each real shell offers when its completion script (as `rlenv completion SHELL` writes it)
 * is asked at the end of a line: bash through its COMP_WORDS interface, zsh through an
 * interactive driver (test/fixtures/completion/zsh-complete.zsh), fish through `complete -C`.
 * Every answer comes back sorted, without duplicates or fish's descriptions.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { COMMANDS } from "../../src/cli/commands";
import { bashCompletion } from "../../src/cli/completion-bash";
import { fishCompletion } from "../../src/cli/completion-fish";
import { zshCompletion } from "../../src/cli/completion-zsh";

const ZSH_DRIVER = path.join(__dirname, "..", "fixtures", "completion", "zsh-complete.zsh");

export interface ShellAsk {
  /** The completion script sourced. */
  script: string;
  /** The folder completion runs in (file names are offered from it). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export type Shell = "bash" | "zsh" | "fish";

/** The program the scripts are written from: `rlenv` with every command registered. */
export function rlenvProgram(): Command {
  const p = new Command("rlenv");
  for (const register of COMMANDS) register(p);
  return p;
}

/** Writes the three scripts `rlenv completion SHELL` prints for `program` into `dir` (rlenv.bash, …); their paths. */
export function writeCompletionScripts(dir: string, program: Command = rlenvProgram()): Record<Shell, string> {
  const scripts = { bash: "", zsh: "", fish: "" };
  for (const [shell, write] of [
    ["bash", bashCompletion],
    ["zsh", zshCompletion],
    ["fish", fishCompletion],
  ] as const) {
    scripts[shell] = path.join(dir, `rlenv.${shell}`);
    writeFileSync(scripts[shell], write(program));
  }
  return scripts;
}

/** What bash offers for the words typed (the last one is the word being completed). */
export function bashOffers(a: ShellAsk, words: string[]): string[] {
  const r = spawnSync(
    "bash",
    [
      "--norc",
      "-c",
      `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _rlenv; printf '%s\\n' "\${COMPREPLY[@]}"`,
      "_",
      a.script,
      ...words,
    ],
    { cwd: a.cwd, encoding: "utf8", env: a.env ?? process.env },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split("\n").filter(Boolean).sort();
}

/** What zsh's completion system offers when `line` is typed and TAB pressed at its end; `out` is a scratch file. */
export function zshOffers(a: ShellAsk, line: string, out: string): string[] {
  const r = spawnSync("zsh", ["-f", ZSH_DRIVER, a.script, out, line], {
    cwd: a.cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: a.env ?? process.env,
  });
  assert.equal(r.status, 0, `zsh driver exited ${r.status} for ${JSON.stringify(line)}: ${r.stderr}`);
  return [...new Set(readFileSync(out, "utf8").split("\n").filter(Boolean))].sort();
}

/** What fish offers for `line` (`complete -C`), the names without their descriptions; the script must load cleanly. */
export function fishOffers(a: ShellAsk, line: string): string[] {
  const r = spawnSync("fish", ["--no-config", "-c", 'source $argv[1]; complete -C "$argv[2]"', a.script, line], {
    cwd: a.cwd,
    encoding: "utf8",
    env: a.env ?? process.env,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "", "the script loads without errors");
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0] ?? "")
    .sort();
}

// `rlenv completion bash|zsh|fish`: scripts written from the commander program itself, so a new
// command or option completes without anyone editing a script. The bash one is sourced in a
// real bash and driven through COMP_WORDS/COMP_CWORD as bash's own completion calls it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Command } from "commander";
import { COMMANDS } from "../../../src/cli/commands";
import { bashCompletion, completionTree, fishCompletion, zshCompletion } from "../../../src/cli/completion";

const ROOT = path.join(__dirname, "..", "..", "..");
const TSX = require.resolve("tsx");
let work: string;
let script: string;

function program(): Command {
  const p = new Command("rlenv");
  for (const register of COMMANDS) register(p);
  return p;
}

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-completion-"));
  script = path.join(work, "rlenv.bash");
  writeFileSync(script, bashCompletion(program()));
  writeFileSync(path.join(work, "env.yaml"), "");
});
after(() => rmSync(work, { recursive: true, force: true }));

/** What bash offers for the words typed (the last one is the word being completed). */
function complete(...words: string[]): string[] {
  const r = spawnSync(
    "bash",
    [
      "--norc",
      "-c",
      `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _rlenv; printf '%s\\n' "\${COMPREPLY[@]}"`,
      "_",
      script,
      ...words,
    ],
    { cwd: work, encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split("\n").filter(Boolean).sort();
}

describe("bash completion", () => {
  test("`rlenv ru` completes to run and runner", () => {
    assert.deepEqual(complete("rlenv", "ru"), ["run", "runner"]);
  });

  test("subcommands of a subcommand, options after '-', and an argument's choices", () => {
    const runner = program().commands.find((c) => c.name() === "runner")!;
    const subs = runner.commands.map((c) => c.name()).sort();
    assert.ok(subs.includes("serve") && subs.includes("login"));
    assert.deepEqual(complete("rlenv", "runner", ""), subs);
    assert.deepEqual(complete("rlenv", "runner", "lo"), ["login"]);
    assert.deepEqual(complete("rlenv", "run", "--sa"), ["--samples", "--sandbox"]);
    assert.deepEqual(complete("rlenv", "completion", ""), ["bash", "fish", "zsh"]);
    assert.ok(complete("rlenv", "").includes("validate"));
  });

  test("an option's value is skipped when finding the command, and completed as a file", () => {
    // `--runs runner` must not make `runner` the subcommand.
    assert.deepEqual(complete("rlenv", "run", "--runs", "runner", "--lim"), ["--limit"]);
    assert.deepEqual(complete("rlenv", "run", "-c", "env"), ["env.yaml"]);
  });
});

describe("the scripts come from the program", () => {
  test("every command and subcommand is in the tree, with its options", () => {
    const tree = completionTree(program());
    const paths = tree.map((n) => n.path);
    for (const p of ["rlenv", "rlenv run", "rlenv runner", "rlenv runner serve", "rlenv completion", "rlenv export"])
      assert.ok(paths.includes(p), p);
    const run = tree.find((n) => n.path === "rlenv run")!;
    assert.ok(run.options.some((o) => o.flags.includes("--config") && o.takesValue));
    assert.ok(!run.options.some((o) => o.flags.includes("--request")), "hidden options are not offered");
  });

  test("zsh loads the same functions through bashcompinit; fish names each command's options with descriptions", () => {
    assert.match(zshCompletion(program()), /bashcompinit[\s\S]*complete -o filenames -F _rlenv rlenv/);
    const fish = fishCompletion(program());
    assert.match(fish, /complete -c rlenv -n 'test "\(__rlenv_path\)" = '\\''rlenv'\\''' -a 'run' -d /);
    assert.match(fish, /-l samples -r -F -d 'samples per task'/);
  });

  test("`rlenv completion bash` prints the script; an unknown shell is refused", () => {
    const r = spawnSync(process.execPath, ["--import", TSX, path.join(ROOT, "src/cli/main.ts"), "completion", "bash"], {
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    // main's program: the same commands, plus its --version.
    assert.match(r.stdout, /'rlenv'\) echo '-V --version -h --help'/);
    assert.match(r.stdout, /'rlenv run'\) echo '-c --config --policy /);
    assert.match(r.stdout, /complete -o filenames -F _rlenv rlenv\n$/);
    const bad = spawnSync(process.execPath, ["--import", TSX, path.join(ROOT, "src/cli/main.ts"), "completion", "tcsh"], {
      encoding: "utf8",
    });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /bash, zsh, fish/);
  });
});

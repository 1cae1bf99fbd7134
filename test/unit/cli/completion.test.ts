// `rlenv completion bash|zsh|fish`: scripts written from the commander program itself, so a new
// command or option completes without anyone editing a script. Each is loaded in its real shell
// and asked for completions the way that shell asks: bash through COMP_WORDS/COMP_CWORD as its
// `complete -F` calls the function, zsh through its completion system in a pseudo-terminal
// (compinit, the line typed, TAB), fish through `complete -C`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { completionTree } from "../../../src/cli/completion";
import { rlenvCommand } from "../../support/cli";
import { bashOffers, fishOffers, rlenvProgram, type Shell, writeCompletionScripts, zshOffers } from "../../support/completion-shells";

let work: string;
let cwd: string;
let scripts: Record<Shell, string>;
const program = rlenvProgram;

/** Why a shell's tests skip: only that the shell is not installed here. */
function missingShell(shell: string): string | false {
  const r = spawnSync("sh", ["-c", `command -v ${shell}`], { encoding: "utf8" });
  return r.status === 0 ? false : `${shell} is not installed (test/setup/apt.sh installs it)`;
}

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-completion-"));
  cwd = path.join(work, "cwd");
  mkdirSync(path.join(cwd, "envs"), { recursive: true });
  writeFileSync(path.join(cwd, "env.yaml"), "");
  writeFileSync(path.join(cwd, "notes.txt"), "");
  scripts = writeCompletionScripts(work);
});
after(() => rmSync(work, { recursive: true, force: true }));

const bash = (...words: string[]) => bashOffers({ script: scripts.bash, cwd }, words);
const zsh = (line: string, script = scripts.zsh) => zshOffers({ script, cwd }, line, path.join(work, "zsh-matches.txt"));
const fish = (line: string) => fishOffers({ script: scripts.fish, cwd }, line);

const runnerSubs = () =>
  program()
    .commands.find((c) => c.name() === "runner")!
    .commands.map((c) => c.name())
    .sort();
const FORMATS = ["atif", "chat-jsonl", "parquet", "rl-jsonl", "trl"];
const FILES = ["env.yaml", "envs", "notes.txt"];

/**
 * The same questions for every shell. `ask(line)` completes at the end of `line`; bash's
 * harness takes words, so its line is split on spaces (and on "=" after an option, as bash does).
 */
function sharedCases(ask: (line: string) => string[], opts: { filesAsDirs?: boolean } = {}) {
  const files = (xs: string[]) => xs.map((f) => (opts.filesAsDirs && f === "envs" ? "envs/" : f));
  test("subcommands: `rlenv ru` → run, runner; `rlenv` offers every command", () => {
    assert.deepEqual(ask("rlenv ru"), ["run", "runner"]);
    const top = ask("rlenv ");
    for (const c of ["validate", "run", "runner", "export", "jobs", "completion"]) assert.ok(top.includes(c), c);
  });
  test("nested subcommands: runner add/login/…, and jobs cancel", () => {
    assert.ok(runnerSubs().includes("login"));
    assert.deepEqual(ask("rlenv runner "), runnerSubs());
    assert.deepEqual(ask("rlenv runner lo"), ["login"]);
    assert.deepEqual(ask("rlenv jobs "), ["cancel"]);
    assert.ok(!ask("rlenv jobs cancel ").includes("cancel"), "the verb is offered as the first argument only");
  });
  test("options of a subcommand, after `-`", () => {
    assert.deepEqual(ask("rlenv run --sa"), ["--samples", "--sandbox"]);
    assert.deepEqual(ask("rlenv runner login --"), ["--help", "--no-verify", "--token-env"]);
    // `--runs runner`: an option's value, not the runner subcommand.
    assert.deepEqual(ask("rlenv run --runs runner --lim"), ["--limit"]);
  });
  test("an option's enumerated values, after `--opt ` and inside `--opt=`; an argument's choices", () => {
    assert.deepEqual(ask("rlenv export --format "), FORMATS);
    assert.deepEqual(ask("rlenv export runs/x --format r"), ["rl-jsonl"]);
    assert.deepEqual(ask("rlenv run --sandbox "), ["auto", "docker", "process"]);
    assert.deepEqual(ask("rlenv completion "), ["bash", "fish", "zsh"]);
  });
  test("file arguments and file-valued options complete file names", () => {
    assert.deepEqual(ask("rlenv run -c en"), files(["env.yaml", "envs"]));
    assert.deepEqual(ask("rlenv validate "), files(FILES));
    assert.deepEqual(ask("rlenv export --format rl-jsonl --out no"), ["notes.txt"]);
  });
}

describe("bash completion (in bash)", { skip: missingShell("bash") }, () => {
  sharedCases((line) => bash(...line.split(" ")));
  test("`--format=` as bash splits it: --format, =, the value", () => {
    assert.deepEqual(bash("rlenv", "export", "--format", "=", ""), FORMATS);
    assert.deepEqual(bash("rlenv", "export", "--format", "=", "tr"), ["trl"]);
    assert.deepEqual(bash("rlenv", "export", "--format", "=", "trl", "--o"), ["--out", "--out-dir"]);
  });
});

describe("zsh completion (in zsh, through compinit)", { skip: missingShell("zsh") }, () => {
  sharedCases(zsh, { filesAsDirs: false });
  test("`--format=` completes the value after the `=`", () => {
    assert.deepEqual(zsh("rlenv export --format=r"), ["rl-jsonl"]);
  });
  test("saved as _rlenv on $fpath, it completes from the first TAB (autoloaded, not sourced)", () => {
    const fpath = path.join(work, "zsh-fpath");
    mkdirSync(fpath, { recursive: true });
    writeFileSync(path.join(fpath, "_rlenv"), readFileSync(scripts.zsh));
    assert.deepEqual(zsh("rlenv runner lo", fpath), ["login"]);
  });
});

describe("fish completion (in fish)", { skip: missingShell("fish") }, () => {
  sharedCases(fish, { filesAsDirs: true });
  test("`--format=` completes the value; descriptions come with subcommands", () => {
    assert.deepEqual(fish("rlenv export --format=r"), ["--format=rl-jsonl"]);
    const r = spawnSync("fish", ["--no-config", "-c", 'source $argv[1]; complete -C "rlenv runner lo"', scripts.fish], {
      encoding: "utf8",
    });
    const login = program()
      .commands.find((c) => c.name() === "runner")!
      .commands.find((c) => c.name() === "login")!;
    assert.ok(r.stdout.startsWith(`login\t${login.description().slice(0, 40)}`), r.stdout);
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
    const exp = tree.find((n) => n.path === "rlenv export")!;
    assert.deepEqual(exp.options.find((o) => o.flags.includes("--format"))?.choices?.sort(), FORMATS);
  });

  test("`rlenv completion SHELL` prints each script; an unknown shell is misuse (exit 2)", () => {
    const [node, ...args] = rlenvCommand();
    const cli = (shell: string) => spawnSync(node as string, [...args, "completion", shell], { encoding: "utf8" });
    const b = cli("bash");
    assert.equal(b.status, 0, b.stderr);
    // main's program: the same commands, plus its --version.
    assert.match(b.stdout, /'rlenv'\) echo '-V --version -h --help'/);
    assert.match(b.stdout, /complete -o filenames -F _rlenv rlenv\n$/);
    assert.match(cli("zsh").stdout, /^#compdef rlenv\n[\s\S]*compdef _rlenv rlenv/);
    assert.match(cli("fish").stdout, /complete -c rlenv -n '__rlenv_at_first '\\''rlenv'\\''' -a 'run' -d /);
    const bad = cli("tcsh");
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /bash, zsh, fish/);
  });
});

import type { Command } from "commander";
import { brief, type CompletionNode, completionTree, sq } from "./completion";

/**
 * The walk over the words typed so far (fish's `commandline -opc`), as bash's and zsh's functions
 * do it: prints the (sub)command they lead to, how many positional arguments follow it, and the
 * first of them (an empty line before it).
 * WALK stands for its name; VALUE_ARMS for the `case` lines of options that take a value, SUB_ARMS
 * for those of subcommands. (Fish expands `(…)` only outside double quotes, so every condition
 * calls a function rather than comparing "(…)" as text.)
 */
const FISH_WALK = `function WALK --description 'the (sub)command the words so far lead to, its positional count and first argument'
    set -l words (commandline -opc)
    set -l cmdpath NAME
    set -l skip 0
    set -l args 0
    set -l first
    for w in $words[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case '--*=*'
                continue
            case '-*'
                switch "$cmdpath $w"
VALUE_ARMS
                end
                continue
        end
        set -l next $cmdpath
        if test $args -eq 0
            switch "$cmdpath $w"
SUB_ARMS
            end
        end
        if test "$next" = "$cmdpath"
            test $args -eq 0; and set first $w
            set args (math $args + 1)
        else
            set cmdpath $next
        end
    end
    echo $cmdpath
    echo $args
    echo $first
end
function AT --argument-names want --description 'true when the words so far lead to the (sub)command want'
    set -l s (WALK)
    test "$s[1]" = "$want"
end
function AT_FIRST --argument-names want --description 'true when at want, before any positional argument'
    set -l s (WALK)
    test "$s[1]" = "$want"; and test "$s[2]" -eq 0
end
function AT_ARG --argument-names want pos first --description 'true when at want, completing its positional argument pos (from 0), after the first argument first if given'
    set -l s (WALK)
    test "$s[1]" = "$want"; and test "$s[2]" -eq $pos; and begin; test -z "$first"; or test "$s[3]" = "$first"; end
end
function SOURCE --argument-names source --description 'the values the program gives for an argument (the runner job ids)'
    set -l words (commandline -opc)
    # A program fish cannot find (not on PATH) offers nothing; fish itself would print an error.
    command -q $words[1]; or return
    $words[1] __complete $source -- $words[2..-1] 2>/dev/null
end`;

function walkArms(tree: CompletionNode[]): { value: string; sub: string } {
  const value = tree.flatMap((n) => {
    const v = n.options.filter((o) => o.takesValue).flatMap((o) => o.flags.map((f) => `${n.path} ${f}`));
    return v.length ? [`                    case ${v.map(sq).join(" ")}`, "                        set skip 1"] : [];
  });
  const sub = tree.flatMap((n) =>
    n.subcommands.length
      ? [
          `                case ${n.subcommands.map((s) => sq(`${n.path} ${s.name}`)).join(" ")}`,
          '                    set next "$cmdpath $w"',
        ]
      : [],
  );
  return { value: value.join("\n"), sub: sub.join("\n") };
}

/** The `complete` lines of one command: its subcommands, first argument's words, job ids or files, and options. */
function commandLines(name: string, n: CompletionNode, base: string): string[] {
  const [at, atFirst, atArg, source] = [`${base}_at`, `${base}_at_first`, `${base}_at_arg`, `${base}_source`];
  const lines: string[] = [];
  const when = `-n ${sq(`${at} ${sq(n.path)}`)}`;
  const first = `-n ${sq(`${atFirst} ${sq(n.path)}`)}`;
  for (const s of n.subcommands) lines.push(`complete -c ${name} ${first} -a ${sq(s.name)} -d ${sq(brief(s.description))}`);
  if (n.argumentChoices.length) lines.push(`complete -c ${name} ${first} -a ${sq(n.argumentChoices.join(" "))}`);
  // Values the program gives (job ids), asked for at the argument's position (after its first argument when it names one).
  for (const a of n.argumentSources) {
    const after = a.afterFirst === undefined ? "" : ` ${sq(a.afterFirst)}`;
    lines.push(`complete -c ${name} -n ${sq(`${atArg} ${sq(n.path)} ${a.position}${after}`)} -a ${sq(`(${source} ${a.source})`)}`);
  }
  // Files where the command takes them: not beside subcommands, nor where its argument names its words or the program gives them.
  if (!n.subcommands.length && !n.argumentChoices.length && !n.argumentSources.length) lines.push(`complete -c ${name} ${when} -F`);
  for (const o of n.options) {
    const spell = o.flags.map((f) => (f.startsWith("--") ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(" ");
    const arg = o.takesValue ? (o.choices ? ` -x -a ${sq(o.choices.join(" "))}` : " -r -F") : "";
    lines.push(`complete -c ${name} ${when} ${spell}${arg} -d ${sq(brief(o.description))}`);
  }
  return lines;
}

/**
 * Fish: one `complete` line per subcommand and per option, each with its description, under a
 * condition that the words typed so far lead to that command.
 */
export function fishCompletion(program: Command): string {
  const name = program.name();
  const base = `__${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const tree = completionTree(program);
  const arms = walkArms(tree);
  const walk = FISH_WALK.replaceAll("AT_ARG", `${base}_at_arg`)
    .replaceAll("AT_FIRST", `${base}_at_first`)
    .replaceAll("SOURCE", `${base}_source`)
    .replaceAll("AT", `${base}_at`)
    .replaceAll("WALK", `${base}_walk`)
    .replaceAll("NAME", sq(name))
    .replace("VALUE_ARMS", arms.value)
    .replace("SUB_ARMS", arms.sub);
  const lines = [
    `# ${name} completion for fish. Load it with:`,
    `#   ${name} completion fish | source`,
    `# or save it as ~/.config/fish/completions/${name}.fish`,
    walk,
    `complete -c ${name} -f`,
    ...tree.flatMap((n) => commandLines(name, n, base)),
  ];
  return `${lines.join("\n")}\n`;
}

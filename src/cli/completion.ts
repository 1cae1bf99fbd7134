import type { Command, Option } from "commander";

/** One command of the program as completion needs it: its path, subcommands and options. */
export interface CompletionNode {
  /** "rlenv", "rlenv runner", "rlenv runner serve". */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  /** Every spelling of every visible option (`-k`, `--samples`), with what it takes. */
  options: Array<{ flags: string[]; description: string; takesValue: boolean; choices?: string[] }>;
  /** The values its first argument takes, when it names them (`completion <shell>`: bash, zsh, fish). */
  argumentChoices: string[];
}

/** Every command reachable from `program`, depth first: the one walk every shell's script is written from. */
export function completionTree(program: Command): CompletionNode[] {
  const out: CompletionNode[] = [];
  const walk = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const options = (cmd.options as Option[])
      .filter((o) => !o.hidden)
      .map((o) => ({
        flags: [o.short, o.long].filter((f): f is string => !!f),
        description: o.description,
        takesValue: o.required || o.optional,
        ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
      }));
    options.push({ flags: ["-h", "--help"], description: "display help for command", takesValue: false });
    out.push({
      path,
      description: cmd.description(),
      subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })),
      options,
      argumentChoices: [...(cmd.registeredArguments[0]?.argChoices ?? [])],
    });
    for (const c of visible) walk(c, `${path} ${c.name()}`);
  };
  walk(program, program.name());
  return out;
}

/** A word as a shell single-quoted string. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The first line of a description, short enough for a completion menu. */
function brief(s: string): string {
  const line = s.split("\n")[0] ?? "";
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}

/**
 * Bash: a `complete -F` function over tables generated from the program. It walks the words
 * typed so far to find the (sub)command, skipping the values of options that take one, then
 * offers subcommands, options (after `-`), an option's choices, or file names.
 */
export function bashCompletion(program: Command): string {
  const tree = completionTree(program);
  const fn = `_${program.name().replace(/[^A-Za-z0-9_]/g, "_")}`;
  const cases = (pick: (n: CompletionNode) => string) => tree.map((n) => `    ${sq(n.path)}) echo ${sq(pick(n))} ;;`).join("\n");
  const choices = tree.flatMap((n) =>
    n.options
      .filter((o) => o.choices)
      .flatMap((o) => o.flags.map((f) => `    ${sq(`${n.path} ${f}`)}) echo ${sq(o.choices!.join(" "))} ;;`)),
  );
  return `# ${program.name()} completion for bash. Load it with:
#   source <(${program.name()} completion bash)
# or save it as ~/.local/share/bash-completion/completions/${program.name()}
${fn}_subcommands() {
  case "$1" in
${cases((n) => n.subcommands.map((s) => s.name).join(" "))}
  esac
}
${fn}_options() {
  case "$1" in
${cases((n) => n.options.flatMap((o) => o.flags).join(" "))}
  esac
}
${fn}_value_options() {
  case "$1" in
${cases((n) =>
  n.options
    .filter((o) => o.takesValue)
    .flatMap((o) => o.flags)
    .join(" "),
)}
  esac
}
${fn}_arguments() {
  case "$1" in
${tree
  .filter((n) => n.argumentChoices.length)
  .map((n) => `    ${sq(n.path)}) echo ${sq(n.argumentChoices.join(" "))} ;;`)
  .join("\n")}
  esac
}
${fn}_choices() {
  case "$1" in
${choices.join("\n")}
  esac
}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=${sq(program.name())} i w skip=0 prev_value=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*=*) continue ;;
      -*)
        if [[ " $(${fn}_value_options "$path") " == *" $w "* ]]; then
          skip=1
          [[ $i -eq $((COMP_CWORD - 1)) ]] && prev_value="$w"
        fi
        continue ;;
    esac
    if [[ " $(${fn}_subcommands "$path") " == *" $w "* ]]; then path="$path $w"; fi
  done
  COMPREPLY=()
  if [[ -n "$prev_value" ]]; then
    local c; c="$(${fn}_choices "$path $prev_value")"
    if [[ -n "$c" ]]; then COMPREPLY=($(compgen -W "$c" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_options "$path")" -- "$cur"))
    return 0
  fi
  local subs; subs="$(${fn}_subcommands "$path") $(${fn}_arguments "$path")"
  if [[ -n "\${subs// /}" ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); fi
  if [[ \${#COMPREPLY[@]} -eq 0 ]]; then COMPREPLY=($(compgen -f -- "$cur")); fi
  return 0
}
complete -o filenames -F ${fn} ${program.name()}
`;
}

/** Zsh: the bash script through zsh's own bashcompinit, so both shells complete from one table. */
export function zshCompletion(program: Command): string {
  return `#compdef ${program.name()}
# ${program.name()} completion for zsh. Load it with:
#   source <(${program.name()} completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program)
  .split("\n")
  .filter((l) => !l.startsWith("#"))
  .join("\n")}`;
}

/**
 * Fish: one `complete` line per subcommand and per option, each with its description, under
 * a condition that the words typed so far lead to that command (a helper walks them as the
 * bash function does).
 */
export function fishCompletion(program: Command): string {
  const name = program.name();
  const fn = `__${name.replace(/[^A-Za-z0-9_]/g, "_")}_path`;
  const tree = completionTree(program);
  const lines: string[] = [
    `# ${name} completion for fish. Load it with:`,
    `#   ${name} completion fish | source`,
    `# or save it as ~/.config/fish/completions/${name}.fish`,
    `function ${fn} --description 'the ${name} (sub)command the words so far lead to'`,
    "    set -l words (commandline -opc)",
    `    set -l path ${sq(name)}`,
    "    set -l skip 0",
    "    for w in $words[2..-1]",
    "        if test $skip -eq 1",
    "            set skip 0",
    "            continue",
    "        end",
    "        switch $w",
    "            case '--*=*'",
    "                continue",
    "            case '-*'",
    '                switch "$path $w"',
    ...tree.flatMap((n) => {
      const v = n.options.filter((o) => o.takesValue).flatMap((o) => o.flags.map((f) => `${n.path} ${f}`));
      return v.length ? [`                    case ${v.map(sq).join(" ")}`, "                        set skip 1"] : [];
    }),
    "                end",
    "                continue",
    "        end",
    '        switch "$path $w"',
    ...tree.flatMap((n) =>
      n.subcommands.length
        ? [`            case ${n.subcommands.map((s) => sq(`${n.path} ${s.name}`)).join(" ")}`, '                set path "$path $w"']
        : [],
    ),
    "        end",
    "    end",
    "    echo $path",
    "end",
    `complete -c ${name} -f`,
  ];
  for (const n of tree) {
    const when = `-n ${sq(`test "(${fn})" = ${sq(n.path)}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c ${name} ${when} -a ${sq(s.name)} -d ${sq(brief(s.description))}`);
    if (n.argumentChoices.length) lines.push(`complete -c ${name} ${when} -a ${sq(n.argumentChoices.join(" "))}`);
    else if (!n.subcommands.length) lines.push(`complete -c ${name} ${when} -F`);
    for (const o of n.options) {
      const spell = o.flags.map((f) => (f.startsWith("--") ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(" ");
      const arg = o.takesValue ? (o.choices ? ` -x -a ${sq(o.choices.join(" "))}` : " -r -F") : "";
      lines.push(`complete -c ${name} ${when} ${spell}${arg} -d ${sq(brief(o.description))}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

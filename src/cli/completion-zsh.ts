import type { Command } from "commander";
import { brief, type CompletionNode, caseArms, choiceArms, completionTree, functionName, sourceArms, sq } from "./completion";

/** `name:description` as `_describe` reads it (a colon inside the name escaped). */
function described(name: string, description: string): string {
  return sq(`${name.replace(/:/g, "\\:")}:${brief(description)}`);
}

/** `reply=(…)` of the words, or nothing when there are none. */
function reply(words: string[]): string | undefined {
  return words.length ? `reply=(${words.join(" ")})` : undefined;
}

function optionEntries(n: CompletionNode): string[] {
  return n.options.flatMap((o) => o.flags.map((f) => described(f, o.description)));
}

/**
 * The completion function; FN stands for its name. `words` and `CURRENT` are zsh's: the walk over
 * words[2,CURRENT-1] finds the (sub)command as the bash function does (skipping options' values,
 * counting positional arguments, noting the first), then it offers an option's choices (after `--opt ` or inside
 * `--opt=`), options with their descriptions (after `-`), subcommands with theirs, the first
 * argument's words and the values the program gives for an argument it names them for (job ids,
 * from `rlenv __complete`), else files. `cmdpath`, not `path`: zsh ties `path` to $PATH.
 */
const ZSH_FUNCTION = `FN() {
  local cmdpath=NAME w value_of= i skip=0 args=0 first=
  local -a reply
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    if (( skip )); then skip=0; continue; fi
    case $w in
      --*=*) continue ;;
      -*)
        FN_value_options $cmdpath
        if (( \${reply[(Ie)$w]} )); then
          skip=1
          (( i == CURRENT - 1 )) && value_of=$w
        fi
        continue ;;
    esac
    FN_subcommands $cmdpath
    if (( args == 0 )) && (( \${reply[(I)\${(b)w}:*]} )); then cmdpath="$cmdpath $w"; else (( args == 0 )) && first=$w; (( args++ )); fi
  done
  if [[ -z $value_of && $PREFIX == --*=* ]]; then
    FN_value_options $cmdpath
    if (( \${reply[(Ie)\${PREFIX%%=*}]} )); then
      value_of=\${PREFIX%%=*}
      compset -P '*='
    fi
  fi
  if [[ -n $value_of ]]; then
    FN_choices "$cmdpath $value_of"
    if (( $#reply )); then _wanted values expl "\${value_of} value" compadd -a reply; else _files; fi
    return
  fi
  if [[ $PREFIX == -* ]]; then
    FN_options $cmdpath
    _describe -t options option reply
    return
  fi
  local -a found
  if (( args == 0 )); then
    FN_subcommands $cmdpath
    if (( $#reply )); then _describe -t commands command reply; return; fi
    FN_arguments $cmdpath
    found=($reply)
  fi
  # An argument the program names the values of (a job id): ask it, and offer no files.
  # "-": the position takes nothing after this first argument (jobs ID <TAB>).
  FN_sources "$cmdpath $args $first"
  if (( $#reply )); then
    [[ $reply[1] != - ]] && found+=(\${(f)"$(\${words[1]} __complete $reply[1] -- \${words[2,CURRENT-1]} 2>/dev/null)"})
    (( $#found )) && _wanted values expl value compadd -a found
    return
  fi
  if (( $#found )); then _wanted arguments expl argument compadd -a found && return; fi
  _files
}`;

/** Zsh: a native completion function (descriptions in the menu) over tables generated from the program. */
export function zshCompletion(program: Command): string {
  const tree = completionTree(program);
  const fn = functionName(program);
  const name = program.name();
  return `#compdef ${name}
# ${name} completion for zsh. Load it with:
#   source <(${name} completion zsh)                   (in ~/.zshrc, after compinit)
# or save it as _${name} in a folder on $fpath.
${fn}_subcommands() {
  reply=()
  case "$1" in
${caseArms(tree, (n) => reply(n.subcommands.map((s) => described(s.name, s.description))))}
  esac
}
${fn}_options() {
  reply=()
  case "$1" in
${caseArms(tree, (n) => reply(optionEntries(n)))}
  esac
}
${fn}_value_options() {
  reply=()
  case "$1" in
${caseArms(tree, (n) => reply(n.options.filter((o) => o.takesValue).flatMap((o) => o.flags.map(sq))))}
  esac
}
${fn}_arguments() {
  reply=()
  case "$1" in
${caseArms(tree, (n) => reply(n.argumentChoices.map(sq)))}
  esac
}
${fn}_choices() {
  reply=()
  case "$1" in
${choiceArms(tree, (c) => `reply=(${c.map(sq).join(" ")})`)}
  esac
}
${fn}_sources() {
  reply=()
  case "$1" in
${sourceArms(tree, (s) => `reply=(${s ?? "-"})`)}
  esac
}
${ZSH_FUNCTION.replaceAll("FN", fn).replace("cmdpath=NAME", `cmdpath=${sq(name)}`)}
if [[ $funcstack[1] == ${fn} ]]; then
  # Autoloaded from $fpath: this file is ${fn}'s first body, so complete now as the new one.
  ${fn} "$@"
elif (( $+functions[compdef] )); then
  compdef ${fn} ${name}
else
  print -u2 "${name} completion: run compinit before loading this script (autoload -U compinit && compinit)"
fi
`;
}

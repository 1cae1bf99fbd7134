import type { Command } from "commander";
import { caseArms, choiceArms, completionTree, functionName, sourceArms, sq, valueFlags } from "./completion";

/**
 * The completion function itself; FN stands for its name. It walks the words typed so far to find
 * the (sub)command, skipping the values of options that take one and counting positional
 * arguments (and noting the first), then offers an option's choices (after `--opt ` or `--opt=`), options (after `-`),
 * subcommands or the first argument's words, the values the program gives for an argument it
 * names them for (job ids, from `rlenv __complete`), else file names. Bash splits `--format=x` into
 * `--format`, `=`, `x` (`=` is in COMP_WORDBREAKS), so `=` is handled as a word of its own.
 */
const BASH_FUNCTION = `FN() {
  local cw=$COMP_CWORD cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath=NAME i w skip=0 args=0 first="" value_of="" end
  end=$cw
  if [[ "$cur" == "=" ]]; then
    value_of="\${COMP_WORDS[cw - 1]}" cur="" end=$((cw - 1))
  elif ((cw >= 2)) && [[ "\${COMP_WORDS[cw - 1]}" == "=" ]]; then
    value_of="\${COMP_WORDS[cw - 2]}" end=$((cw - 2))
  elif ((cw >= 2)); then
    value_of="\${COMP_WORDS[cw - 1]}"
    end=$((cw - 1))
  fi
  for ((i = 1; i < end; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; [[ "$w" == "=" ]] && skip=1; continue; fi
    case "$w" in
      --*=*) continue ;;
      -*)
        [[ " $(FN_value_options "$cmdpath") " == *" $w "* ]] && skip=1
        continue ;;
    esac
    if ((args == 0)) && [[ " $(FN_subcommands "$cmdpath") " == *" $w "* ]]; then cmdpath="$cmdpath $w"; else ((args == 0)) && first="$w"; args=$((args + 1)); fi
  done
  COMPREPLY=()
  # The word before the cursor (or before "="): an option that takes a value, or one more word of the walk.
  if [[ -n "$value_of" ]]; then
    if [[ "$value_of" == -* ]] && ((!skip)) && [[ " $(FN_value_options "$cmdpath") " == *" $value_of "* ]]; then
      local c; c="$(FN_choices "$cmdpath $value_of")"
      if [[ -n "$c" ]]; then COMPREPLY=($(compgen -W "$c" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
      return 0
    fi
    if ((!skip)) && [[ "$value_of" != -* && "$value_of" != "=" ]]; then
      if ((args == 0)) && [[ " $(FN_subcommands "$cmdpath") " == *" $value_of "* ]]; then cmdpath="$cmdpath $value_of"; else ((args == 0)) && first="$value_of"; args=$((args + 1)); fi
    fi
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(FN_options "$cmdpath")" -- "$cur"))
    return 0
  fi
  if ((args == 0)); then
    local words; words="$(FN_subcommands "$cmdpath") $(FN_arguments "$cmdpath")"
    if [[ -n "\${words// /}" ]]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); fi
  fi
  # An argument the program names the values of (a job id): ask it, and offer no file names.
  # "-": the position takes nothing after this first argument (jobs ID <TAB>).
  local source; source="$(FN_sources "$cmdpath $args $first")"
  if [[ -n "$source" ]]; then
    [[ "$source" != - ]] && COMPREPLY+=($(compgen -W "$("\${COMP_WORDS[0]}" __complete "$source" -- "\${COMP_WORDS[@]:1:cw-1}" 2>/dev/null)" -- "$cur"))
    return 0
  fi
  if [[ \${#COMPREPLY[@]} -eq 0 ]]; then COMPREPLY=($(compgen -f -- "$cur")); fi
  return 0
}`;

/** Bash: a `complete -F` function over tables generated from the program. */
export function bashCompletion(program: Command): string {
  const tree = completionTree(program);
  const fn = functionName(program);
  const name = program.name();
  const echo = (s: string) => (s ? `echo ${sq(s)}` : undefined);
  return `# ${name} completion for bash. Load it with:
#   source <(${name} completion bash)
# or save it as ~/.local/share/bash-completion/completions/${name}
${fn}_subcommands() {
  case "$1" in
${caseArms(tree, (n) => echo(n.subcommands.map((s) => s.name).join(" ")))}
  esac
}
${fn}_options() {
  case "$1" in
${caseArms(tree, (n) => echo(n.options.flatMap((o) => o.flags).join(" ")))}
  esac
}
${fn}_value_options() {
  case "$1" in
${caseArms(tree, (n) => echo(valueFlags(n)))}
  esac
}
${fn}_arguments() {
  case "$1" in
${caseArms(tree, (n) => echo(n.argumentChoices.join(" ")))}
  esac
}
${fn}_choices() {
  case "$1" in
${choiceArms(tree, (c) => `echo ${sq(c.join(" "))}`)}
  esac
}
${fn}_sources() {
  case "$1" in
${sourceArms(tree, (s) => `echo ${s ?? "-"}`)}
  esac
}
${BASH_FUNCTION.replaceAll("FN", fn).replace("cmdpath=NAME", `cmdpath=${sq(name)}`)}
complete -o filenames -F ${fn} ${name}
`;
}

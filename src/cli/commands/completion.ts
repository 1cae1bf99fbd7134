import { Argument, type Command } from "commander";
import { bashCompletion } from "../completion-bash";
import { fishCompletion } from "../completion-fish";
import { zshCompletion } from "../completion-zsh";

const SHELLS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;

/** `rlenv completion bash|zsh|fish`: a completion script written from the program's own commands and options. */
export function registerCompletion(program: Command): void {
  program
    .command("completion")
    .description("Print a shell completion script (commands, subcommands, options, their values) for bash, zsh or fish")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(Object.keys(SHELLS)))
    .addHelpText(
      "after",
      `
Load it:
  bash   source <(rlenv completion bash)          (or save it as ~/.local/share/bash-completion/completions/rlenv)
  zsh    source <(rlenv completion zsh)           (in ~/.zshrc after compinit, or save it as _rlenv on $fpath)
  fish   rlenv completion fish | source           (or save it as ~/.config/fish/completions/rlenv.fish)`,
    )
    .action((shell: string) => {
      process.stdout.write(SHELLS[shell as keyof typeof SHELLS](program));
    });
}

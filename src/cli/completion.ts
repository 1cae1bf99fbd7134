import type { Argument, Command, Option } from "commander";
import { type ArgumentSource, type CompletionSource, sourceOf } from "./completion-sources";

/** One command of the program as completion needs it: its path, subcommands and options. */
export interface CompletionNode {
  /** "rlenv", "rlenv runner", "rlenv runner serve". */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  /** Every spelling of every visible option (`-k`, `--samples`), with what it takes. */
  options: Array<{ flags: string[]; description: string; takesValue: boolean; choices?: string[] }>;
  /**
   * The words its first argument is offered: its choices (`completion <shell>`: bash, zsh, fish),
   * or the words a command suggested without enforcing them (`jobs [job]`: cancel, beside any id).
   */
  argumentChoices: string[];
  /**
   * By position, the arguments whose values the program is asked for while completing
   * (`jobs cancel ID`: the runner's job ids); completion offers no file names for them.
   */
  argumentSources: Array<{ position: number } & ArgumentSource>;
}

/** Words offered for an argument that also takes other values (so commander's `.choices()` would be wrong). */
const SUGGESTED = new WeakMap<Argument, string[]>();

/** Offer `words` when completing `arg` without refusing anything else (`jobs cancel ID` beside `jobs ID`). */
export function suggestWords<A extends Argument>(arg: A, words: string[]): A {
  SUGGESTED.set(arg, words);
  return arg;
}

function isHidden(c: Command): boolean {
  return (c as unknown as { _hidden?: boolean })._hidden === true;
}

/** Every command reachable from `program`, depth first: the one walk every shell's script is written from. */
export function completionTree(program: Command): CompletionNode[] {
  const out: CompletionNode[] = [];
  const walk = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !isHidden(c));
    const options = (cmd.options as Option[])
      .filter((o) => !o.hidden)
      .map((o) => ({
        flags: [o.short, o.long].filter((f): f is string => !!f),
        description: o.description,
        takesValue: o.required || o.optional,
        ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
      }));
    options.push({ flags: ["-h", "--help"], description: "display help for command", takesValue: false });
    const first = cmd.registeredArguments[0];
    out.push({
      path,
      description: cmd.description(),
      subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })),
      options,
      argumentChoices: first ? [...(first.argChoices ?? SUGGESTED.get(first) ?? [])] : [],
      argumentSources: cmd.registeredArguments.flatMap((a, position) => {
        const source = sourceOf(a);
        return source ? [{ position, ...source }] : [];
      }),
    });
    for (const c of visible) walk(c, `${path} ${c.name()}`);
  };
  walk(program, program.name());
  return out;
}

/** A word as a shell single-quoted string (bash, zsh and fish read it alike). */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The first line of a description, short enough for a completion menu. */
export function brief(s: string): string {
  const line = s.split("\n")[0] ?? "";
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}

/** The name of a shell function for `program` (`_rlenv`): letters, digits and underscores only. */
export function functionName(program: Command): string {
  return `_${program.name().replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/** `case "$1" in 'PATH') …;; esac` arms, one per command (bash and zsh share the syntax). */
export function caseArms(tree: CompletionNode[], body: (n: CompletionNode) => string | undefined): string {
  return tree
    .map((n) => [n.path, body(n)] as const)
    .filter((a): a is readonly [string, string] => a[1] !== undefined)
    .map(([path, b]) => `    ${sq(path)}) ${b} ;;`)
    .join("\n");
}

/** Arms keyed by "PATH FLAG" for each option of each command that names its values. */
export function choiceArms(tree: CompletionNode[], body: (choices: string[]) => string): string {
  return tree
    .flatMap((n) => n.options.flatMap((o) => (o.choices ? o.flags.map((f) => `    ${sq(`${n.path} ${f}`)}) ${body(o.choices!)} ;;`) : [])))
    .join("\n");
}

/** The flags of a command's options that take a value, space-separated. */
export function valueFlags(n: CompletionNode): string {
  return n.options
    .filter((o) => o.takesValue)
    .flatMap((o) => o.flags)
    .join(" ");
}

/**
 * Arms keyed by "PATH POSITION FIRST" (FIRST: the first positional argument typed, empty before
 * it) for each argument whose values the program gives while completing. An argument that takes
 * them only after one first argument (`jobs cancel ID`) has that arm, then one for any other
 * first argument, where `body(undefined)` says the position takes nothing (`jobs ID <TAB>`).
 */
export function sourceArms(tree: CompletionNode[], body: (source: CompletionSource | undefined) => string): string {
  return tree
    .flatMap((n) =>
      n.argumentSources.flatMap((a) => {
        const at = `${n.path} ${a.position} `;
        if (a.afterFirst === undefined) return [`    ${sq(at)}*) ${body(a.source)} ;;`];
        return [`    ${sq(at + a.afterFirst)}) ${body(a.source)} ;;`, `    ${sq(at)}*) ${body(undefined)} ;;`];
      }),
    )
    .join("\n");
}

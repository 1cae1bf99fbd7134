/**
 * A bench's command-line options: `--name VALUE` read from process.argv, the benches' one way of
 * taking them (no parser: they print figures and take a few numbers and paths).
 */

/** The word after `--name` (or after `name` itself where it starts with a dash: `-k`); `dflt` when the option is absent. */
export function arg(name: string, dflt: string): string;
export function arg(name: string, dflt: undefined): string | undefined;
export function arg(name: string, dflt: string | undefined): string | undefined {
  const i = process.argv.indexOf(name.startsWith("-") ? name : `--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
}

/** A numeric option, as `arg` reads it. */
export function numArg(name: string, dflt: number): number {
  return Number(arg(name, String(dflt)));
}

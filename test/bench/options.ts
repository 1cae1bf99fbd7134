/**
 * A bench's command-line options: `--name VALUE` read from process.argv, the benches' one way of
 * taking them (no parser: they print figures and take a few numbers and paths).
 */

/** The word after `--name` on the command line; `dflt` when the option is absent. */
export function arg(name: string, dflt: string | undefined): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

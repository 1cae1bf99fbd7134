/** A line that says what went wrong, in the words of apt, the shell, compilers and Python. */
const TELLING =
  /\b(error|fail(ed|ure)?|denied|not permitted|not found|cannot|can not|unable|no such|refused|invalid|fatal)\b|^E: |Traceback/i;

/** The text cut to n characters, an ellipsis marking the cut. */
export const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The line of a script's output that names its failure: the last telling one, else the last one that is not blank. */
export function lastTellingLine(text: string): string | null {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const pick = lines.findLast((l) => TELLING.test(l) && !/^Traceback\b/.test(l)) ?? lines.at(-1);
  return pick ? clip(pick) : null;
}

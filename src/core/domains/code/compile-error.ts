/**
 * Python reports a file that does not compile with a SyntaxError (or IndentationError /
 * TabError) naming the file and line. Finding it in the output lets the observation and
 * the reward record say "syntax error" instead of a generic test failure.
 */
const ERROR_LINE = /^(?:E\s+)?(?:\w+\.)*(SyntaxError|IndentationError|TabError): (.+)$/m;
const FILE_LINE = /File "([^"]+)", line (\d+)/g;

export function describeCompileError(output: string): string | null {
  const m = ERROR_LINE.exec(output);
  if (!m) return null;
  // The frame that names the bad file is the last one before the error line.
  const before = output.slice(0, m.index);
  let where: RegExpExecArray | null = null;
  for (const f of before.matchAll(FILE_LINE)) where = f;
  const kind = m[1] ?? "SyntaxError";
  const msg = (m[2] ?? "").trim();
  return where ? `${kind} in ${where[1]} line ${where[2]}: ${msg}` : `${kind}: ${msg}`;
}

/**
 * One word for a POSIX shell (sh, bash): left as it is when every character is safe bare,
 * else in single quotes with each embedded single quote closed, escaped and reopened. The one
 * copy every command line built here goes through (the sandbox backends, Harbor's oracle and
 * test.sh, the code domain's test runs, the audit's probes, Slurm's batch scripts), so no word
 * reaches a shell in double quotes (where `$`, backticks and `\` still act) or with its quotes
 * deleted.
 */
export function shq(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quote one word for sh: single quotes, with embedded single quotes closed and escaped. */
export function shq(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Where an unclosed quoted YAML string opens. The parser reports a missing closing quote
 * where the text ends, which can be hundreds of lines below the mistake; the string began
 * at the nearest quote before that point that is not escaped (`\"` inside double quotes,
 * `''` inside single ones), since an unescaped one would have closed it.
 */
export function openingQuote(text: string, end: number, quote: '"' | "'"): number {
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] !== quote) continue;
    if (quote === '"') {
      let slashes = 0;
      for (let j = i - 1; j >= 0 && text[j] === "\\"; j--) slashes++;
      if (slashes % 2 === 0) return i;
    } else if (text[i - 1] === "'") {
      i--; // an escaped '' pair
    } else if (text[i + 1] !== "'") return i;
  }
  return -1;
}

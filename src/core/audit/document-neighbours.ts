/**
 * The figures a reader most easily takes instead of the right one: where the gold figure
 * stands in a table row of the document, the other figures of that row (the same line item
 * in another year or column), and the figure at the same column of the rows around it
 * (another line item of the same year). A document's tables are text here: a row is a
 * line, a column is a figure's index among the line's figures.
 */
export interface Neighbours {
  /** The same line item, another column (usually another year), as the document writes them. */
  sameRow: number[];
  /** Another line item, the same column. */
  sameColumn: number[];
}

const NUMBER = /\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?/g;

/** The figures of one line, in order; a year written alone (a column header) is not one. */
function lineFigures(line: string): Array<{ value: number; decimals: number }> {
  const out: Array<{ value: number; decimals: number }> = [];
  for (const m of line.matchAll(NUMBER)) {
    const raw = m[0].replace(/[\s$]/g, "");
    const negative = raw.startsWith("-") || (raw.startsWith("(") && raw.endsWith(")"));
    const digits = raw.replace(/[()\-,]/g, "");
    const value = Number(digits);
    if (!Number.isFinite(value)) continue;
    if (/^(19|20)\d\d$/.test(digits)) continue;
    out.push({ value: negative ? -value : value, decimals: digits.includes(".") ? (digits.split(".")[1] ?? "").length : 0 });
  }
  return out;
}

/** Scale factors between how an answer and a document may write one amount (units, thousands, millions). */
const SCALES = [1, 1000, 0.001, 1e6, 1e-6];

/** Rows and columns around each place the document writes `value` (at most `limit` of each), in the answer's scale. */
export function neighbourFigures(text: string, value: number, limit = 2): Neighbours {
  const out: Neighbours = { sameRow: [], sameColumn: [] };
  if (value === 0) return out;
  const lines = text.split(/\r?\n/);
  const rows = lines.map(lineFigures);
  const near = (a: number, b: number) => Math.abs(a - b) <= 0.01 * Math.max(Math.abs(a), Math.abs(b));
  // A figure of another size altogether (a share count beside an amount) is no plausible slip.
  const plausible = (v: number) => v !== 0 && Math.abs(v) <= 50 * Math.abs(value) && Math.abs(v) >= Math.abs(value) / 50;
  const push = (list: number[], v: number) => {
    if (list.length < limit && plausible(v) && !near(v, value) && !list.some((x) => near(x, v))) list.push(v);
  };
  // Where the document writes the gold figure itself: the same value, or (with three significant digits or more,
  // so that a stray small number does not match) the same value in thousands or millions.
  const significant = (f: { value: number; decimals: number }) => String(Math.round(Math.abs(f.value) * 10 ** f.decimals)).length;
  const same = (f: { value: number; decimals: number }, s: number) =>
    (s === 1 || significant(f) >= 3) && significant(f) >= 2 && Math.abs(f.value * s - value) <= 1e-9 * Math.max(1, Math.abs(value));
  const scaleOf = (f: { value: number; decimals: number }) => SCALES.find((s) => same(f, s));
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] ?? [];
    for (let col = 0; col < row.length; col++) {
      const f = row[col];
      if (!f) continue;
      const scale = scaleOf(f);
      if (scale === undefined) continue;
      for (const g of row) if (g !== f) push(out.sameRow, g.value * scale);
      // The nearest rows above and below with as many figures: the same table.
      for (const step of [-1, 1]) {
        for (let j = i + step; j >= 0 && j < rows.length && Math.abs(j - i) <= 6; j += step) {
          const other = rows[j] ?? [];
          if (other.length === 0) continue;
          const g = other[col];
          if (other.length === row.length && g) push(out.sameColumn, g.value * scale);
          break;
        }
      }
    }
    if (out.sameRow.length >= limit && out.sameColumn.length >= limit) break;
  }
  return out;
}

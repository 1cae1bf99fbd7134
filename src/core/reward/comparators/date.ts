import { type FieldComparator, show, verdict } from "./field-result";

/** A calendar date, with month and day absent when the text gives only a year or a month. */
export interface DateParts {
  year: number;
  month?: number;
  day?: number;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function monthOf(word: string): number | undefined {
  const i = MONTHS.indexOf(word.slice(0, 3).toLowerCase());
  return i < 0 ? undefined : i + 1;
}

function valid(d: DateParts): DateParts | null {
  if (d.year < 1000 || d.year > 9999) return null;
  if (d.month !== undefined && (d.month < 1 || d.month > 12)) return null;
  if (d.day !== undefined && (d.day < 1 || d.day > 31)) return null;
  return d;
}

const MONTH_WORD =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";

/**
 * Read the dates contracts and filings write: 2022-07-01, July 1, 2022, 1 July 2022,
 * Jul. 1, 2022, 07/01/2022 (US month first), the 1st day of July, 2022, July 2022, 2022.
 */
export function parseDate(input: unknown): DateParts | null {
  if (typeof input !== "string") return null;
  const s = input.trim().replace(/(\d)(st|nd|rd|th)\b/gi, "$1");
  let m = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/.exec(s);
  if (m) return valid({ year: +m[1]!, month: +m[2]!, day: +m[3]! });
  m = new RegExp(`\\b${MONTH_WORD}\\s+(\\d{1,2}),?\\s+(\\d{4})\\b`, "i").exec(s);
  if (m) return valid({ year: +m[3]!, month: monthOf(m[1]!), day: +m[2]! });
  m = new RegExp(`\\b(\\d{1,2})\\s+(?:day\\s+of\\s+)?${MONTH_WORD},?\\s+(\\d{4})\\b`, "i").exec(s);
  if (m) return valid({ year: +m[3]!, month: monthOf(m[2]!), day: +m[1]! });
  m = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(s);
  if (m) return valid({ year: +m[3]!, month: +m[1]!, day: +m[2]! });
  m = new RegExp(`\\b${MONTH_WORD},?\\s+(\\d{4})\\b`, "i").exec(s);
  if (m) return valid({ year: +m[2]!, month: monthOf(m[1]!) });
  m = /\b(\d{4})-(\d{2})\b/.exec(s);
  if (m) return valid({ year: +m[1]!, month: +m[2]! });
  m = /^(?:fy\s?)?(\d{4})$/i.exec(s);
  if (m) return valid({ year: +m[1]! });
  return null;
}

export function formatDate(d: DateParts): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return d.month === undefined ? `${d.year}` : d.day === undefined ? `${d.year}-${p(d.month)}` : `${d.year}-${p(d.month)}-${p(d.day)}`;
}

/** Same calendar date; as precise as the gold value (a gold "July 2022" accepts any day of it). */
export const compareDate: FieldComparator = (actual, gold) => {
  const g = parseDate(gold);
  if (!g) return verdict(false, `the gold value ${show(gold)} is not a date`);
  const a = parseDate(actual);
  if (!a) return verdict(false, `no date in the answer ${show(actual)}`);
  const same = a.year === g.year && (g.month === undefined || a.month === g.month) && (g.day === undefined || a.day === g.day);
  return same ? verdict(true, `${formatDate(a)} matches`) : verdict(false, `${formatDate(a)} differs from ${formatDate(g)}`);
};

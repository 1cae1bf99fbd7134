/**
 * Figures with physical units ("148.5 MW", "148,500 kW", "1.2 million tonnes", "20 °C",
 * "250 ms", "1 KiB"): the figure is read by the quantity reader (scale words, signs,
 * separators), the unit after it by js-quantities, a maintained units library, so prefixes,
 * conversions and dimensions are its, not a table of ours. Only spellings it does not take are
 * mapped here (°C, plurals, "tonnes").
 */
import Qty from "js-quantities";
import { findQuantities, type Quantity } from "./quantity";

/** A figure with a physical unit, read into the unit's base (SI) units. */
export interface Measure {
  /** The figure as the quantity reader read it (value with the scale word applied). */
  figure: Quantity;
  /** The unit as the library writes it ("MW", "t", "tempC"). */
  unit: string;
  /** The kind of quantity (power, length, mass, temperature…): two measures compare only within one. */
  kind: string;
  /** The value in base units. */
  base: number;
  /** Base units per unit of the figure's value, for precision ("5 km": 1000). */
  factor: number;
  start: number;
  /** Where the unit is written: the figure is text[start, unitStart), the unit text[unitStart, end) with its space. */
  unitStart: number;
  end: number;
}

/** Words that follow figures in prose and that the library would read as units ("5 in 2022" is not 5 inches). */
const NOT_UNITS = new Set([
  "in",
  "at",
  "as",
  "a",
  "an",
  "am",
  "pm",
  "each",
  "c",
  "f",
  "C",
  "F",
  "x",
  "b",
  "or",
  "to",
  "of",
  "on",
  "by",
  "per",
  "M",
]);

/** Spellings the library does not take, written as it does. */
const SPELLINGS: Record<string, string> = {
  "°c": "tempC",
  ºc: "tempC",
  celsius: "tempC",
  "degrees celsius": "tempC",
  "°f": "tempF",
  ºf: "tempF",
  fahrenheit: "tempF",
  k: "tempK",
  kelvin: "tempK",
  kelvins: "tempK",
  tonne: "t",
  tonnes: "t",
  "metric tons": "t",
  "metric tonnes": "t",
  kb: "kB",
};

/** A unit written right after a figure: "°C", "MW", "km/h", "m^2", "m²", "kWh", "metric tonnes". */
const UNIT_AFTER = /^[ \u00a0]?((?:metric |degrees )?[°º]?[A-Za-zµμΩ]+(?:[\^]?[0-9²³])?(?:\/[A-Za-zµμΩ]+(?:[\^]?[0-9²³])?)?)(?![\w])/u;

/** The library's unit for a unit written in text, or undefined when it is not one (or is unitless, a currency). */
export function readUnit(written: string): { unit: string; kind: string } | undefined {
  const w = written.replace(/²/g, "^2").replace(/³/g, "^3").replace(/μ/g, "µ");
  // Case matters: "B" is a byte, "b" a bit that prose rarely means; "M" (molar) is a million or a name ("3M").
  if (NOT_UNITS.has(w) || (/^[A-Z][a-z]+$/.test(w) && NOT_UNITS.has(w.toLowerCase()))) return undefined;
  const spelled = SPELLINGS[w] ?? SPELLINGS[w.toLowerCase()];
  const tries = spelled ? [spelled] : [w, w.replace(/es$/, ""), w.replace(/s$/, "")];
  for (const t of tries) {
    const q = t ? Qty.parse(`1 ${t}`) : null;
    if (!q) continue;
    const kind = q.kind();
    if (kind === "unitless" || kind === "currency") return undefined;
    return { unit: q.units(), kind };
  }
  return undefined;
}

/** Base units per unit (the derivative: temperatures' offsets do not scale a precision). */
function baseFactor(unit: string): number {
  return Qty(1, unit).toBase().scalar - Qty(0, unit).toBase().scalar;
}

/**
 * Every figure in `text` followed by a physical unit, in order. A scale letter glued to the
 * digits ("5m") is read as the unit it begins ("5m/s" is 5 metres per second) when one does.
 */
export function findMeasures(text: string): Measure[] {
  const out: Measure[] = [];
  for (const q of findQuantities(text)) {
    if (q.kind !== "plain") continue;
    const raw = text.slice(q.start, q.end);
    const glued = q.scale !== 1 && /\d[kmb]$/i.test(raw);
    const figure = glued ? { ...q, value: q.mantissa, scale: 1, end: q.end - 1 } : q;
    const m = UNIT_AFTER.exec(text.slice(figure.end, figure.end + 40));
    const unit = m?.[1] ? readUnit(m[1]) : undefined;
    if (!m || !unit) continue;
    const end = figure.end + m[0].length;
    out.push({
      figure: { ...figure, end },
      ...unit,
      base: Qty(figure.value, unit.unit).toBase().scalar,
      factor: baseFactor(unit.unit),
      start: figure.start,
      unitStart: figure.end,
      end,
    });
  }
  return out;
}

/** The measure a gold value states: its first figure with a physical unit, or null. */
export function parseMeasure(value: unknown): Measure | null {
  return typeof value === "string" ? (findMeasures(value)[0] ?? null) : null;
}

/** `m` in the gold's terms for the rounding rules: the value in base units, its precision scaled to them. */
export function inBaseUnits(m: Measure): Quantity {
  return { ...m.figure, value: m.base, scale: m.figure.scale * m.factor };
}

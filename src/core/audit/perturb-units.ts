import Qty from "js-quantities";
import { findMeasures } from "../reward/comparators/units";
import type { AnswerVariant } from "./perturb-answer";

/** SI prefixes a unit may carry, largest first, with their powers of ten. */
const PREFIXES: Array<[string, number]> = [
  ["T", 12],
  ["G", 9],
  ["M", 6],
  ["k", 3],
  ["", 0],
  ["m", -3],
  ["µ", -6],
];

/** A unit of the same dimension `power` powers of ten larger per unit ("MW" → "GW" for 3), when the library knows one. */
function prefixed(unit: string, power: number): string | undefined {
  const [prefix, p] = PREFIXES.find(([x]) => x !== "" && unit.startsWith(x) && Qty.parse(`1 ${unit.slice(x.length)}`)) ?? ["", 0];
  const bare = unit.slice(prefix.length);
  const want = PREFIXES.find(([, q]) => q === p + power);
  if (!want || !bare) return undefined;
  const u = `${want[0]}${bare}`;
  const q = Qty.parse(`1 ${u}`);
  // The library must read it as that prefix of that unit ("mt" is not a thousandth of a tonne to a reader).
  if (!q?.isCompatible(`1 ${unit}`)) return undefined;
  const ratio = q.to(unit).scalar / 10 ** power;
  // And the grader's reader must take it as written ("Mm" and the like are left out).
  return Math.abs(ratio - 1) < 1e-9 && findMeasures(`1 ${u}`)[0]?.unit === q.units() ? u : undefined;
}

/** A unit of another dimension that an answer could plausibly confuse with `unit` ("MWh" for "MW", "kg" for "km"). */
function otherDimension(unit: string): string | undefined {
  for (const u of [`${unit}h`, unit.replace(/m$/, "g"), unit.replace(/g$/, "m"), "kg", "m"]) {
    const q = Qty.parse(`1 ${u}`);
    if (q && u !== unit && !q.isCompatible(`1 ${unit}`) && q.kind() !== "unitless") return u;
  }
  return undefined;
}

const written = (v: number) => Number(v.toPrecision(12)).toLocaleString("en-US", { maximumFractionDigits: 9 });

/**
 * Variants of a figure with a physical unit ("148.5 MW"): the same number with another prefix
 * or a unit of another dimension, and the bare number (each must lose reward); the same amount
 * in the units a thousand times smaller and larger ("148,500 kW", "0.1485 GW": each must keep it).
 */
export function measureVariants(s: string): AnswerVariant[] {
  const m = findMeasures(s)[0];
  if (!m || m.unit.startsWith("temp")) return [];
  const writtenUnit = s.slice(m.unitStart, m.end).trim();
  const number = s.slice(m.start, m.unitStart).trim();
  const put = (text: string) => s.slice(0, m.start) + text + s.slice(m.end);
  const out: AnswerVariant[] = [];
  for (const power of [3, -3]) {
    const u = prefixed(m.unit, power);
    if (!u) continue;
    out.push({
      operator: "unit-prefix-swap",
      description: `'${writtenUnit}' read as '${u}'`,
      answer: put(`${number} ${u}`),
      expect: "reject",
    });
    out.push({
      operator: "reformat-unit",
      description: `the same amount in ${u}`,
      answer: put(`${written(m.figure.value / 10 ** power)} ${u}`),
      expect: "accept",
    });
  }
  const other = otherDimension(m.unit);
  if (other)
    out.push({
      operator: "unit-dimension-swap",
      description: `a unit of another dimension (${other})`,
      answer: put(`${number} ${other}`),
      expect: "reject",
    });
  out.push({ operator: "unit-dropped", description: "the figure without its unit", answer: put(number), expect: "reject" });
  return out;
}

/**
 * Variants of a list of names (parties, segments): one left out, one added, one swapped for a
 * name not in the list (each must lose reward with the default threshold), and the list in
 * reverse order (must keep it).
 */
export function entityListVariants(list: readonly string[]): AnswerVariant[] {
  if (list.length === 0) return [];
  const stranger = `${list[0]} Holdings Group`;
  const out: AnswerVariant[] = [
    { operator: "entity-added", description: `a name not in the list added (${stranger})`, answer: [...list, stranger], expect: "reject" },
    {
      operator: "entity-swapped",
      description: `the first name swapped for ${stranger}`,
      answer: [stranger, ...list.slice(1)],
      expect: "reject",
    },
  ];
  if (list.length > 1) {
    out.push({ operator: "entity-dropped", description: `'${list.at(-1)}' left out`, answer: list.slice(0, -1), expect: "reject" });
    out.push({ operator: "reformat-order", description: "the same names in reverse order", answer: [...list].reverse(), expect: "accept" });
  }
  return out;
}

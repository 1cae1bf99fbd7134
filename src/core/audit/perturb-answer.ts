import { neighbourFigures } from "./document-neighbours";
import { entityListVariants, measureVariants } from "./perturb-units";

/**
 * Plausible wrong answers derived from a document task's gold answer (each must lose
 * reward), and correct reformattings of it (each must keep it). Only figures and dates are
 * perturbed: a free-text field is the judge's, which the audit cannot run without an endpoint.
 */
export interface AnswerVariant {
  operator: string;
  description: string;
  answer: unknown;
  /** reject: a wrong answer, must score below the gold; accept: a correct reformatting, must score as the gold. */
  expect: "reject" | "accept";
}

const FIGURE = /(\(|-)?(\$)?\s?(\d[\d,]*(?:\.\d+)?)\s*(%|percent|million|billion|thousand)?(\))?/i;
const SCALES = ["thousand", "million", "billion"] as const;

interface Figure {
  start: number;
  end: number;
  value: number;
  negative: boolean;
  dollar: boolean;
  unit: string;
  decimals: number;
  commas: boolean;
}

function findFigure(s: string): Figure | null {
  const m = FIGURE.exec(s);
  if (!m || m[3] === undefined) return null;
  const digits = m[3];
  const value = Number(digits.replace(/,/g, ""));
  if (!Number.isFinite(value)) return null;
  return {
    start: m.index,
    end: m.index + m[0].length,
    value,
    negative: m[1] === "-" || (m[1] === "(" && m[5] === ")"),
    dollar: m[2] === "$",
    unit: (m[4] ?? "").toLowerCase(),
    decimals: digits.includes(".") ? (digits.split(".")[1] ?? "").length : 0,
    commas: digits.includes(","),
  };
}

function formatNumber(v: number, decimals: number, commas: boolean): string {
  const fixed = Math.abs(v).toFixed(decimals);
  if (!commas) return fixed;
  const [int, frac] = fixed.split(".");
  return `${(int ?? "").replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}`;
}

function render(f: Figure, over: Partial<Figure>): string {
  const g = { ...f, ...over };
  const num = formatNumber(g.value, g.decimals, g.commas);
  const unit = g.unit === "%" ? "%" : g.unit ? ` ${g.unit}` : "";
  return `${g.negative ? "-" : ""}${g.dollar ? "$" : ""}${num}${unit}`;
}

/** Decimals enough to show a changed value (1 % of 1,577 needs none; 1 % of 3.2 needs two). */
function decimalsFor(f: Figure, v: number): number {
  for (let d = f.decimals; d < 6; d++) if (Number(Math.abs(v).toFixed(d)) !== Math.abs(f.value)) return d;
  return 6;
}

function replaceFigure(s: string, f: Figure, text: string): string {
  return s.slice(0, f.start) + text + s.slice(f.end);
}

/** Wrong and reformatted versions of one string that holds a figure or a date; empty when it holds neither. */
export function stringVariants(s: string, otherFigures: string[] = [], documentText?: string): AnswerVariant[] {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s.trim());
  if (date) return dateVariants(date);
  const f = findFigure(s);
  if (!f) return [];
  return [...wrongFigures(s, f), ...borrowedFigures(s, f, otherFigures, documentText), ...hedgedFigures(s, f), ...reformattedFigures(s, f)];
}

/** A date a year earlier and a day later. */
function dateVariants(date: RegExpExecArray): AnswerVariant[] {
  const out: AnswerVariant[] = [];
  const [y, mo, d] = [Number(date[1]), date[2] ?? "01", Number(date[3])];
  out.push({
    operator: "another-year",
    description: "the same date a year earlier",
    answer: `${y - 1}-${mo}-${String(d).padStart(2, "0")}`,
    expect: "reject",
  });
  out.push({
    operator: "off-by-one-day",
    description: "the next day",
    answer: `${y}-${mo}-${String(d === 28 ? 27 : d + 1).padStart(2, "0")}`,
    expect: "reject",
  });
  return out;
}

/** The figure scaled a little and a lot, its sign flipped, its unit swapped. */
function wrongFigures(s: string, f: Figure): AnswerVariant[] {
  const out: AnswerVariant[] = [];
  const scaled = (factor: number, op: string, description: string) => {
    const v = f.value * factor;
    out.push({
      operator: op,
      description,
      answer: replaceFigure(s, f, render(f, { value: v, decimals: decimalsFor(f, v) })),
      expect: "reject",
    });
  };
  scaled(1.01, "plus-1-percent", "the figure 1 % higher");
  scaled(0.99, "minus-1-percent", "the figure 1 % lower");
  scaled(1.1, "plus-10-percent", "the figure 10 % higher");
  scaled(0.9, "minus-10-percent", "the figure 10 % lower");
  if (f.value !== 0)
    out.push({
      operator: "sign",
      description: "the sign flipped",
      answer: replaceFigure(s, f, render(f, { negative: !f.negative })),
      expect: "reject",
    });
  scaled(1000, "scale-x1000", "the figure × 1000 (a thousand read as a unit)");
  scaled(0.001, "scale-div1000", "the figure ÷ 1000");
  const scaleAt = SCALES.indexOf(f.unit as (typeof SCALES)[number]);
  if (scaleAt >= 0) {
    const other = SCALES[scaleAt === 2 ? 1 : scaleAt + 1] ?? "million";
    out.push({
      operator: "unit-swap",
      description: `'${f.unit}' read as '${other}'`,
      answer: replaceFigure(s, f, render(f, { unit: other })),
      expect: "reject",
    });
  } else if (f.unit === "%") {
    out.push({
      operator: "unit-swap",
      description: "a percentage given as a money amount",
      answer: replaceFigure(s, f, render(f, { unit: "", dollar: true })),
      expect: "reject",
    });
  }
  return out;
}

/** Other figures in its place: the prompt's, and the document's neighbours in its row and column. */
function borrowedFigures(s: string, f: Figure, otherFigures: string[], documentText: string | undefined): AnswerVariant[] {
  const out: AnswerVariant[] = [];
  const others = otherFigures.filter((o) => {
    const g = findFigure(o);
    return g && Math.abs(g.value - f.value) > 0.01 * Math.max(1, Math.abs(f.value)) && g.unit === f.unit;
  });
  for (const o of others.slice(0, 2))
    out.push({
      operator: "other-figure",
      description: `another figure of the same document (${o})`,
      answer: replaceFigure(s, f, o),
      expect: "reject",
    });
  if (documentText) {
    const near = neighbourFigures(documentText, f.negative ? -f.value : f.value);
    const put = (v: number) => replaceFigure(s, f, render(f, { value: Math.abs(v), negative: v < 0, decimals: decimalsFor(f, v) }));
    for (const v of near.sameRow)
      out.push({
        operator: "other-year",
        description: `the same line item in another year or column of the document (${put(v)})`,
        answer: put(v),
        expect: "reject",
      });
    for (const v of near.sameColumn)
      out.push({
        operator: "other-line-item",
        description: `another line item of the same year or column of the document (${put(v)})`,
        answer: put(v),
        expect: "reject",
      });
  }
  return out;
}

/** An empty answer, and the figure hedged among wrong ones. */
function hedgedFigures(s: string, f: Figure): AnswerVariant[] {
  const out: AnswerVariant[] = [];
  out.push({ operator: "empty", description: "an empty answer", answer: "", expect: "reject" });
  const hedges = [1.1, 0.9, 1000, 0.001, 1.01].map((k) => render(f, { value: f.value * k, decimals: decimalsFor(f, f.value * k) }));
  out.push({
    operator: "over-long",
    description: "the figure hedged among five wrong ones",
    answer: `${hedges.slice(0, 3).join(", or ")}, or ${s}, or ${hedges.slice(3).join(", or ")}`,
    expect: "reject",
  });
  return out;
}

/** Correct reformattings: the same amount at another scale, written out in full, without separators. */
function reformattedFigures(s: string, f: Figure): AnswerVariant[] {
  const out: AnswerVariant[] = [];
  const scaleAt = SCALES.indexOf(f.unit as (typeof SCALES)[number]);
  if (scaleAt >= 0 && f.dollar) {
    const factor = 1000 ** (scaleAt + 1);
    const full = f.value * factor;
    if (scaleAt < 2) {
      const up = f.value / 1000;
      out.push({
        operator: "reformat-scale",
        description: `the same amount in ${SCALES[scaleAt + 1]}`,
        answer: replaceFigure(
          s,
          f,
          render(f, { value: up, unit: SCALES[scaleAt + 1] ?? "", decimals: Math.min(6, f.decimals + 3), commas: false }),
        ),
        expect: "accept",
      });
    }
    out.push({
      operator: "reformat-full",
      description: "the amount written out in dollars",
      answer: replaceFigure(s, f, render(f, { value: full, unit: "", decimals: 0, commas: true })),
      expect: "accept",
    });
    out.push({
      operator: "reformat-plain",
      description: "the amount as a bare number",
      answer: replaceFigure(s, f, `${f.negative ? "-" : ""}${Math.round(full)}`),
      expect: "accept",
    });
  } else if (f.unit === "%") {
    out.push({
      operator: "reformat-percent",
      description: "'percent' spelled out",
      answer: replaceFigure(s, f, render(f, { unit: "percent" })),
      expect: "accept",
    });
  } else if (f.commas) {
    out.push({
      operator: "reformat-plain",
      description: "without thousands separators",
      answer: replaceFigure(s, f, render(f, { commas: false })),
      expect: "accept",
    });
  }
  return out;
}

function getPath(v: unknown, p: string): unknown {
  return p.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), v);
}

function setPath(v: unknown, p: string, value: unknown): unknown {
  const copy = structuredClone(v) as Record<string, unknown>;
  const keys = p.split(".");
  let o: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  o[keys[keys.length - 1] ?? ""] = value;
  return copy;
}

/**
 * Variants of a whole answer: for each graded field (not judge-graded) that holds a figure
 * or a date, directly or in the first element of a list that does, the answer with that one
 * value changed.
 */
export function answerVariants(
  gold: unknown,
  fields: Array<{ path: string; judge: boolean }>,
  otherFigures: string[] = [],
  documentText?: string,
): Array<AnswerVariant & { field: string }> {
  const out: Array<AnswerVariant & { field: string }> = [];
  for (const { path, judge } of fields) {
    if (judge) continue;
    const value = path === "" ? gold : getPath(gold, path);
    const put = (v: unknown) => (path === "" ? v : setPath(gold, path, v));
    if (typeof value === "number") {
      // A number answer stays a number where the variant still is one.
      for (const v of stringVariants(String(value), otherFigures, documentText)) {
        const n = typeof v.answer === "string" && /^-?\d+(\.\d+)?$/.test(v.answer) ? Number(v.answer) : v.answer;
        out.push({ ...v, field: path, answer: put(n) });
      }
    } else if (typeof value === "string") {
      for (const v of [...stringVariants(value, otherFigures, documentText), ...measureVariants(value)])
        out.push({ ...v, field: path, answer: put(v.answer) });
    } else if (Array.isArray(value)) {
      // A list of names (no item a figure or a date): the set comparator's perturbations.
      if (value.every((x) => typeof x === "string" && stringVariants(x).length === 0))
        for (const v of entityListVariants(value as string[])) out.push({ ...v, field: path, answer: put(v.answer) });
      const i = value.findIndex((x) =>
        typeof x === "string"
          ? stringVariants(x).length > 0
          : x && typeof x === "object" && Object.values(x).some((y) => typeof y === "string" && findFigure(y)),
      );
      const item = value[i];
      if (i < 0 || item === undefined) continue;
      if (typeof item === "string") {
        for (const v of stringVariants(item, otherFigures, documentText)) {
          const list = [...value];
          if (v.operator === "empty") list.splice(i, 1);
          else list[i] = v.answer;
          out.push({
            ...v,
            field: `${path}[${i}]`,
            answer: put(list),
            description: v.operator === "empty" ? "one item left out" : v.description,
          });
        }
      } else {
        const key = Object.keys(item).find(
          (k) => typeof (item as Record<string, unknown>)[k] === "string" && findFigure((item as Record<string, string>)[k] ?? ""),
        );
        if (!key) continue;
        for (const v of stringVariants((item as Record<string, string>)[key] ?? "", otherFigures, documentText)) {
          if (v.operator === "empty" || v.operator === "over-long") continue;
          const list = [...value];
          list[i] = { ...(item as object), [key]: v.answer };
          out.push({ ...v, field: `${path}[${i}].${key}`, answer: put(list) });
        }
      }
    }
  }
  return out;
}

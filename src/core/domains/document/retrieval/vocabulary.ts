import { z } from "zod";
import raw from "./finance-terms.json";

/** The three primary financial statements a filing prints. */
export const STATEMENT_KINDS = ["income", "balance", "cash_flow"] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];

const StatementSpec = z.strictObject({
  label: z.string(),
  titles: z.array(z.string()),
  lines: z.array(z.string()),
  mentions: z.array(z.string()),
});

const VocabularyFile = z.looseObject({
  query_stop_words: z.array(z.string()),
  statements: z.strictObject({ income: StatementSpec, balance: StatementSpec, cash_flow: StatementSpec }),
  concepts: z.array(
    z.strictObject({
      terms: z.array(z.string()).min(1),
      statement: z.enum(STATEMENT_KINDS).optional(),
      parts: z.array(z.string()).optional(),
    }),
  ),
});

export interface Concept {
  /** Normalised phrases (see normalizePhrase), each a synonym of the others. */
  terms: string[];
  statement?: StatementKind;
  /** Concepts (by one of their terms) a ratio is computed from. */
  parts: string[];
}

export interface Vocabulary {
  stopWords: Set<string>;
  concepts: Concept[];
  statements: Record<StatementKind, { label: string; titles: string[]; lines: string[]; mentions: string[] }>;
}

/**
 * A phrase as matched against queries, page text and row labels: lower case, curly quotes
 * straight, punctuation but '&' and apostrophes as spaces, one space between words.
 */
export function normalizePhrase(s: string): string {
  return ` ${s
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/'s\b/g, "")
    .replace(/[^\p{L}\p{N}&']+/gu, " ")
    .trim()} `;
}

/** Check and compile a vocabulary file's content; `file` names it in errors. */
export function compileVocabulary(data: unknown, file: string): Vocabulary {
  const r = VocabularyFile.safeParse(data);
  if (!r.success) {
    const where = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`${file}: ${where}`);
  }
  const v = r.data;
  const norm = (xs: string[]) => xs.map(normalizePhrase);
  const statements = Object.fromEntries(
    STATEMENT_KINDS.map((k) => [
      k,
      {
        label: v.statements[k].label,
        titles: norm(v.statements[k].titles),
        lines: norm(v.statements[k].lines),
        mentions: norm(v.statements[k].mentions),
      },
    ]),
  ) as Vocabulary["statements"];
  return {
    stopWords: new Set(v.query_stop_words.map((w) => w.toLowerCase())),
    concepts: v.concepts.map((c) => ({
      terms: norm(c.terms),
      ...(c.statement ? { statement: c.statement } : {}),
      parts: norm(c.parts ?? []),
    })),
    statements,
  };
}

/** The shipped finance vocabulary (finance-terms.json beside this file). */
export const FINANCE_VOCABULARY: Vocabulary = compileVocabulary(raw, "src/core/domains/document/retrieval/finance-terms.json");

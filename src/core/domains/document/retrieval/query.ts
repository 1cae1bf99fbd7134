import { isStopWord, termOf, tokenize } from "../tokenize";
import { type FilingHints, filingHints } from "./filing";
import { type StatementKind, type Vocabulary, normalizePhrase } from "./vocabulary";

/** A search query read for the finance-aware ranker. */
export interface AnalyzedQuery {
  /** Index terms of the query's own words, question boilerplate dropped. */
  terms: string[];
  /** Index terms that only synonyms brought in (weighed less). */
  expansion: string[];
  /** Phrases of the query itself (runs of two or more content words), normalised. */
  phrases: string[];
  /** Synonym phrases of the concepts the query names ("purchases of property plant and equipment" for "capex"). */
  synonyms: string[];
  /** Statements the query's concepts live in, or that it names ("balance sheet"). */
  statements: Set<StatementKind>;
  /** Figures and years the query writes ("2019" from "FY2019"), as index terms. */
  numbers: string[];
  filing: FilingHints;
}

function indexTerms(phrase: string): string[] {
  return tokenize(phrase)
    .map((t) => t.term)
    .filter((t) => !isStopWord(t));
}

/** Concepts whose any term appears in `text` (normalised), matched as whole phrases. */
function namedConcepts(text: string, vocab: Vocabulary) {
  return vocab.concepts.filter((c) => c.terms.some((t) => text.includes(t)));
}

export function analyzeQuery(query: string, vocab: Vocabulary): AnalyzedQuery {
  const norm = normalizePhrase(query);
  const words = norm.trim().split(" ").filter(Boolean);
  const content = (w: string) => !vocab.stopWords.has(w) && !isStopWord(w) && !/\d/.test(w);
  // Index terms: labels such as "fy2019" stay (numbers are matched apart, below).
  const isTerm = (t: string) => !vocab.stopWords.has(t) && !isStopWord(t) && !/^\d/.test(t);
  const terms = [
    ...new Set(
      tokenize(query)
        .map((t) => t.term)
        .filter(isTerm),
    ),
  ];
  // Phrases: runs of content words; "&" joins ("sg&a" is one word already).
  const phrases: string[] = [];
  let run: string[] = [];
  for (const w of [...words, ""]) {
    if (w && content(w)) run.push(w);
    else {
      if (run.length >= 2) phrases.push(` ${run.join(" ")} `);
      run = [];
    }
  }
  const concepts = namedConcepts(norm, vocab);
  // A ratio's parts count as named too (a DPO question needs payables and cost of sales).
  for (const c of [...concepts])
    for (const part of c.parts)
      for (const p of vocab.concepts.filter((x) => x.terms.includes(part))) if (!concepts.includes(p)) concepts.push(p);
  const synonyms = [...new Set(concepts.flatMap((c) => c.terms))].filter((t) => !norm.includes(t));
  const own = new Set(terms);
  const expansion = [...new Set(synonyms.flatMap(indexTerms))].filter((t) => !own.has(t) && !vocab.stopWords.has(t));
  const statements = new Set<StatementKind>();
  for (const c of concepts) if (c.statement) statements.add(c.statement);
  for (const [kind, spec] of Object.entries(vocab.statements) as Array<[StatementKind, Vocabulary["statements"][StatementKind]]>) {
    if (spec.mentions.some((m) => norm.includes(m))) statements.add(kind);
  }
  const numbers = [...new Set([...query.matchAll(/(?:19|20)\d{2}(?!\d)|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+/g)].map((m) => termOf(m[0])))];
  return { terms, expansion, phrases, synonyms, statements, numbers, filing: filingHints(query) };
}

/**
 * Reading a reply as a person reads it: which sentence answers, which figure of it is the
 * result, and whether the reply declines to answer. The figure comparators (number, money,
 * percent, quantity) grade the figure these choose, so a reply that works its way to the
 * answer ("$19,815 million − $13,997 million = $5,818 million") is graded on its result,
 * not on the first figure it mentions.
 */

/** A span of the reply: a sentence, a line or a bullet. */
export interface Span {
  text: string;
  start: number;
  end: number;
}

/**
 * The reply cut into sentences: at a full stop, question or exclamation mark followed by a
 * space (a decimal point is followed by a digit, so "1.5" stays whole; "approx." or "Inc."
 * followed by a lower-case word does not end one), and at every line break.
 */
export function sentences(text: string): Span[] {
  const out: Span[] = [];
  const cut = /(?<=[.!?:])\s+(?=[^a-z\s])|\n\s*/g;
  let start = 0;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (/[\p{L}\p{N}]/u.test(body)) out.push({ text: body, start: start + lead, end: start + lead + body.length });
  };
  for (const m of text.matchAll(cut)) {
    push(m.index);
    start = m.index + m[0].length;
  }
  push(text.length);
  return out;
}

/**
 * Words that open a conclusion: the sentence that answers after the working ("Therefore, …",
 * "So the ratio is …", "In summary, …", "The answer is …").
 */
const CONCLUSION =
  /\b(?:therefore|thus|hence|so|consequently|in summary|in conclusion|to summari[sz]e|overall|in total|final answer|the answer (?:is|would be)|the result is|this gives|which gives|this means|we get|comes? (?:out )?to|rounded)\b|^answer\s*:/i;

/** Whether a sentence concludes: it opens with or holds a conclusion word. */
export function concludes(sentence: string): boolean {
  return CONCLUSION.test(sentence);
}

/**
 * Phrases that decline to answer or hedge on the inputs themselves: the model says it cannot
 * answer, or that what it was given (the context, the evidence, the excerpts) lacks the
 * figure. A reply saying the filing itself shows none ("restructuring costs are not outlined
 * in the income statement, so 0") is an answer; one saying its evidence shows none is not,
 * whatever it then states, since a question's own rule ("if not outlined, state 0") would
 * otherwise pay for not looking.
 */
const REFUSAL = [
  /\bas an ai\b/i,
  /\bI (?:do not|don't|cannot|can't|am unable to|am not able to)\s+(?:have (?:real-time |direct )?access|access|browse|provide|determine|calculate|compute|find|answer|give)\b/i,
  /\b(?:unable|not able|impossible|not possible) to (?:determine|calculate|compute|provide|answer|find|say|give)\b/i,
  /\b(?:cannot|can't|could not|couldn't) be (?:determined|calculated|computed|answered|found)\b/i,
  /\b(?:not enough|insufficient|no sufficient|not sufficient) (?:information|data|detail|details)\b/i,
  /\b(?:does not|doesn't|do not|don't) (?:provide|contain|include|give|have) (?:enough|sufficient|the necessary|the required|the needed)\b/i,
  /\b(?:provided|given|retrieved|available) (?:evidence|context|excerpts?|passages?|snippets?|information)\s+(?:does not|doesn't|do not|don't|did not|is not|isn't|are not|aren't)\b/i,
  /\b(?:evidence|context|excerpts?|passages?|snippets?) (?:provided|given|retrieved)\s+(?:does not|doesn't|do not|don't|did not|is not|isn't|are not|aren't)\b/i,
  /\bnot (?:available|provided|given|included|mentioned) in the (?:provided |given |retrieved )?(?:context|evidence|excerpts?|passages?|snippets?)\b/i,
  /\b(?:please )?(?:refer|check) (?:to )?the company's\b/i,
];

/** The phrase by which a reply declines to answer, or undefined when it answers. */
export function refusalIn(text: string): string | undefined {
  for (const re of REFUSAL) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

/**
 * The sentence that answers, among those holding a figure that could answer (`fits`): the
 * last one that concludes; else the last one working a figure out ("COGS % margin = (15,357 /
 * 38,655) * 100 = 39.73%"); else the first one (a direct answer comes first, the explanation
 * after it: "COGS was $32,780 million. This comes from the income statement.").
 */
export function answerSentence(text: string, fits: (s: Span) => boolean): Span | undefined {
  const candidates = sentences(text).filter(fits);
  return candidates.filter((s) => concludes(s.text)).at(-1) ?? candidates.filter((s) => /[=≈]/.test(s.text)).at(-1) ?? candidates[0];
}

/** Marks that put the result after them: an equals sign, "is", "was", "equals", "of", a colon. */
const RESULT_MARK =
  /(?:=|≈|~|\b(?:is|was|were|are|equals?|equal to|amounts? to|amounted to|totals?|totaled|totalled|stood at|comes? to|of|at)\b|:)\s*(?:approximately|about|around|roughly|an? |the |negative |minus |positive |\(|\$|-|−)*$/i;

/** Where the working of a sentence ends: just after its last "=" or "≈", or its start when it has none. */
export function workingEnd(sentence: Span, text: string): number {
  const i = Math.max(text.lastIndexOf("=", sentence.end - 1), text.lastIndexOf("≈", sentence.end - 1));
  return i >= sentence.start ? i + 1 : sentence.start;
}

/**
 * Which of a sentence's figures (in order) is its result: the one after its last equals sign
 * ("(a − b) / c = 0.83"), else the first after a result word ("Revenue was $1,577 million",
 * "the change is 0.2 percentage points"), else the first. `figures` are the fitting figures of
 * the sentence, offsets into `text`.
 */
export function resultFigure<T extends { start: number; end: number }>(text: string, sentence: Span, figures: readonly T[]): T | undefined {
  const inside = figures.filter((f) => f.start >= sentence.start && f.end <= sentence.end);
  if (inside.length === 0) return undefined;
  const working = workingEnd(sentence, text);
  const after = inside.find((f) => f.start >= working && working > sentence.start);
  if (after) return after;
  return inside.find((f) => RESULT_MARK.test(text.slice(sentence.start, f.start))) ?? inside[0];
}

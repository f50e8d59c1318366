import { MAX_RAW_CHARS } from './parse-verdict.js';
import type { GradeVerdict } from './types.js';

/** How an equivalence verdict was read (see {@link parseEquivalenceVerdict}). */
export type EquivalenceRule = 'canonical' | 'last-sentence' | 'none';

const CANONICAL = /THE ANSWER IS (NOT )?EQUIVALENT/gi;
const NEGATIVE = /\b(?:not|isn't|aren't|never)\b[^.!?]*\bequivalent\b|\b(?:in|non-?)equivalent\b/i;
/** A sentence that withholds a verdict: uncertainty, or a verdict that depends on something unsaid. */
const HEDGE =
  /\b(?:cannot|can't|can ?not|unable to|impossible to|not possible to|hard to|difficult to)\b[^.!?]*\b(?:determine|say|tell|decide|conclude|provide|know|be sure|confirm|verify|guarantee)\b|\bdefinitive(?:ly)?\b|\b(?:not|n't) (?:sure|certain|clear)\b|\bunclear\b|\buncertain\b|\bit depends\b|\bdepend(?:s|ing)? on\b|\bwithout (?:more|further|additional)\b|\b(?:may|might|could) (?:or may not |or might not )?(?:be|not be)\b|\bpossibly\b|\bperhaps\b/i;
/** A sentence about equivalence that asks or announces instead of answering. */
const NO_VERDICT = /\?\s*$|^\s*(?:to|let's|let us|we (?:need|will|must|have) to)\b[^.!?]*\b(?:determine|check|see|verify|decide|compare|analy[sz]e|find out)\b|\bwhether\b|\bif (?:they|the (?:two )?queries|q1 and q2) are\b/i;

/**
 * Reads a SQL-equivalence judge's free-text reply — the LLM-SQL-Solver prompts end with
 * "Output either THE ANSWER IS EQUIVALENT or THE ANSWER IS NOT EQUIVALENT at the end (NEVER
 * BOTH)" — as a grading verdict: equivalent → `correct`, not equivalent → `incorrect`.
 *
 * The documented rule:
 * 1. `canonical`: the reply contains the canonical phrase (any casing) of one kind only →
 *    that verdict. Both phrases (the prompt forbids it) → `unparsed`.
 * 2. `last-sentence`: no canonical phrase → the last sentence that mentions "equivalent"
 *    decides: negative when it says *not … equivalent* (or *inequivalent*, *non-equivalent*),
 *    else positive ("Both queries are equivalent.", "Therefore, the answer is EQUIVALENT."),
 *    **unless** it gives no verdict (a question, "to determine whether they are equivalent …",
 *    "whether", "if they are equivalent") or the reply ends in a hedge: that sentence, or any
 *    sentence after it, withholds the verdict ("we cannot provide a definitive answer", "it
 *    depends on the data", "they may be equivalent", "without more information"). Both are
 *    `unparsed`, with the reason.
 * 3. Neither → `unparsed`.
 * The caller reports how many verdicts each rule read, so a reader can set the fallback aside.
 *
 * Source: Zhao et al. (2023), "LLM-SQL-Solver: Can LLMs Determine SQL Equivalence?"
 * (arXiv 2312.10321), the published judge prompts.
 *
 * @example parseEquivalenceVerdict('… Therefore, Q1 and Q2 are NOT equivalent.') // { verdict: { label: 'incorrect', reason: '… NOT equivalent.' }, rule: 'last-sentence' }
 */
export function parseEquivalenceVerdict(reply: string | null | undefined): { verdict: GradeVerdict; rule: EquivalenceRule } {
  const raw = reply ?? '';
  const cut = raw.length > MAX_RAW_CHARS ? `${raw.slice(0, MAX_RAW_CHARS)}…` : raw;
  const found = [...raw.matchAll(CANONICAL)].map((m) => (m[1] === undefined ? 'correct' : 'incorrect'));
  const kinds = new Set(found);
  if (kinds.size === 2) {
    return { verdict: { label: 'unparsed', problem: 'the reply gives both THE ANSWER IS EQUIVALENT and THE ANSWER IS NOT EQUIVALENT', raw: cut }, rule: 'none' };
  }
  if (kinds.size === 1) return { verdict: { label: found[0]!, reason: lastParagraph(raw) }, rule: 'canonical' };
  const sentences = raw.split(/(?<=[.!?])\s+|\n+/).filter((s) => /equivalent/i.test(s));
  const last = sentences[sentences.length - 1];
  if (last === undefined) {
    return { verdict: { label: 'unparsed', problem: 'the reply has neither THE ANSWER IS [NOT] EQUIVALENT nor a sentence saying whether the queries are equivalent', raw: cut }, rule: 'none' };
  }
  const all = raw.split(/(?<=[.!?])\s+|\n+/).map((x) => x.trim()).filter((x) => x !== '');
  const after = all.slice(all.lastIndexOf(last.trim()) + 1);
  const hedge = [last, ...after].find((x) => HEDGE.test(x));
  if (hedge !== undefined) {
    return { verdict: { label: 'unparsed', problem: `the reply ends in a hedge, not a verdict: "${hedge.trim().slice(0, 200)}"`, raw: cut }, rule: 'none' };
  }
  if (NO_VERDICT.test(last)) {
    return { verdict: { label: 'unparsed', problem: `the last sentence about equivalence gives no verdict: "${last.trim().slice(0, 200)}"`, raw: cut }, rule: 'none' };
  }
  return { verdict: { label: NEGATIVE.test(last) ? 'incorrect' : 'correct', reason: last.trim() }, rule: 'last-sentence' };
}

function lastParagraph(text: string): string {
  const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p !== '' && !/^THE ANSWER IS (NOT )?EQUIVALENT\.?$/i.test(p));
  const last = paragraphs[paragraphs.length - 1] ?? '';
  return last.length > 500 ? `${last.slice(0, 500)}…` : last;
}

import type { GradeLabel, GradeVerdict, PairLabel, PairVerdict, UnparsedVerdict } from './types.js';

/** Longest reply text kept in an {@link UnparsedVerdict} (characters). */
export const MAX_RAW_CHARS = 2000;

/**
 * Every JSON object found in a model reply, best candidates first: the whole reply, then
 * each fenced code block (```json … ``` or ``` … ```), then each balanced `{…}` span in the
 * prose (strings and escapes respected). Objects only: arrays and scalars are skipped.
 * Never throws.
 *
 * @example jsonObjectsIn('Sure! {"verdict": "A", "reason": "clearer"} Hope this helps.')
 * // → [{ verdict: 'A', reason: 'clearer' }]
 */
export function jsonObjectsIn(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const attempt = (candidate: string): void => {
    const trimmed = candidate.trim();
    if (trimmed === '' || seen.has(trimmed)) return;
    seen.add(trimmed);
    try {
      const value: unknown = JSON.parse(trimmed);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) found.push(value as Record<string, unknown>);
    } catch {
      // not JSON: try the next candidate
    }
  };
  attempt(text);
  for (const match of text.matchAll(/```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g)) attempt(match[1] ?? '');
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end > start) attempt(text.slice(start, end + 1));
  }
  return found;
}

/** Index of the `}` closing the `{` at `start`, or −1; skips braces inside JSON strings. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth += 1;
    else if (ch === '}') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The value of the first key (case-insensitive, trimmed) among `names`. */
function field(object: Record<string, unknown>, names: readonly string[]): { key: string; value: unknown } | undefined {
  for (const name of names) {
    for (const [key, value] of Object.entries(object)) {
      if (key.trim().toLowerCase() === name) return { key, value };
    }
  }
  return undefined;
}

const VERDICT_KEYS = ['verdict'] as const;
const REASON_KEYS = ['reason', 'reasoning', 'explanation', 'rationale'] as const;

function unparsed(problem: string, raw: string): UnparsedVerdict {
  return { label: 'unparsed', problem, raw: raw.length > MAX_RAW_CHARS ? `${raw.slice(0, MAX_RAW_CHARS)}…` : raw };
}

function reasonOf(object: Record<string, unknown>): string {
  const r = field(object, REASON_KEYS)?.value;
  return typeof r === 'string' ? r.trim() : r === undefined || r === null ? '' : JSON.stringify(r);
}

/**
 * Reads a verdict out of a reply: the first JSON object with a `verdict` key (any casing),
 * its value normalised by `normalise` (undefined = outside the allowed set).
 */
function parseWith<L extends string>(
  reply: string | null | undefined,
  allowed: string,
  normalise: (value: string) => L | undefined,
): { label: L; reason: string } | UnparsedVerdict {
  if (reply === null || reply === undefined || reply.trim() === '') return unparsed('the reply has no text', reply ?? '');
  const objects = jsonObjectsIn(reply);
  if (objects.length === 0) return unparsed('the reply is not JSON and contains no JSON object', reply);
  const withVerdict = objects.find((o) => field(o, VERDICT_KEYS) !== undefined);
  if (withVerdict === undefined) {
    const keys = Object.keys(objects[0]!).map((k) => JSON.stringify(k)).join(', ');
    return unparsed(`the reply's JSON has no "verdict" field (keys: ${keys || 'none'})`, reply);
  }
  const { value } = field(withVerdict, VERDICT_KEYS)!;
  if (typeof value !== 'string') return unparsed(`verdict ${JSON.stringify(value)} is not one of ${allowed}`, reply);
  const label = normalise(value);
  if (label === undefined) return unparsed(`verdict ${JSON.stringify(value)} is not one of ${allowed}`, reply);
  return { label, reason: reasonOf(withVerdict) };
}

/** Trims, drops surrounding quotes, brackets and a final period, lower-cases. */
function simplify(value: string): string {
  return value.trim().replace(/^["'`([]+|["'`)\].!]+$/g, '').trim().toLowerCase();
}

/**
 * Parses a pairwise judge reply into a verdict A / B / tie with its reason.
 *
 * Accepted: a JSON object with a `verdict` key (any casing) whose value is `A`, `B` or `tie`
 * (any casing; also `"Reason A"`, `"Answer B"`, `"(A)"`, `"A."`), with an optional `reason`
 * (or `reasoning`, `explanation`, `rationale`) string — as the whole reply, in a fenced code
 * block, or embedded in prose. Anything else is `unparsed` with the problem stated (a reply
 * that is not JSON, JSON without a verdict, a verdict outside {A, B, tie}); never throws.
 *
 * Source: the regression-gate chapter, "Judge only what can't be compared" (JUDGE_PAIR,
 * `parse_verdict`).
 *
 * @param reply - the assistant message's content (null for a tool-call-only reply).
 * @example parsePairVerdict('```json\n{"Verdict": "b", "reason": "names the missing table"}\n```')
 * // → { label: 'B', reason: 'names the missing table' }
 */
export function parsePairVerdict(reply: string | null | undefined): PairVerdict {
  return parseWith<PairLabel>(reply, 'A, B, tie', (value) => {
    const v = simplify(value);
    if (v === 'tie') return 'tie';
    const m = /^(?:(?:reason|answer|response|option|text)\s+)?([ab])$/.exec(v);
    return m ? (m[1] === 'a' ? 'A' : 'B') : undefined;
  });
}

/**
 * Parses a grading judge reply into a verdict correct / incorrect with its reason.
 *
 * Accepted: a JSON object with a `verdict` key (any casing) whose value is `correct` or
 * `incorrect` (any casing, surrounding quotes or a final period ignored), optional `reason`;
 * whole reply, fenced block or embedded in prose. Anything else is `unparsed` with the
 * problem stated; never throws.
 *
 * Source: the regression-gate chapter, "Calibrate the judge against reference labels"
 * (JUDGE_ANSWER, `parse_verdict`).
 *
 * @example parseGradeVerdict('I checked the filter. {"verdict": "INCORRECT", "reason": "keeps only January 1"}')
 * // → { label: 'incorrect', reason: 'keeps only January 1' }
 */
export function parseGradeVerdict(reply: string | null | undefined): GradeVerdict {
  return parseWith<GradeLabel>(reply, 'correct, incorrect', (value) => {
    const v = simplify(value);
    return v === 'correct' || v === 'incorrect' ? v : undefined;
  });
}

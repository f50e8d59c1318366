import type { QueryResultSummary } from '../agent/types.js';

/** A number written in an answer, with the decimals it was written with. */
export interface WrittenNumber {
  /** As written, e.g. `1,234.5` or `45%`. */
  readonly text: string;
  readonly value: number;
  /** Digits after the decimal point (0 for `1,234`). */
  readonly decimals: number;
}

/** The numbers of a written answer sorted into cited, ignored and uncited. */
export interface CitationResult {
  readonly cited: readonly WrittenNumber[];
  readonly ignored: readonly WrittenNumber[];
  readonly uncited: readonly WrittenNumber[];
}

// A number not glued to a word or another number: optional sign, thousands groups or digits,
// optional decimals. "2014-2015" gives 2014 and 2015; "Q3" and "v2" give nothing.
const NUMBER = /(?<![\w.,])([-−]?)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\w])/gu;

/**
 * The numbers written in a text, in order. Thousands separators are dropped, a Unicode minus
 * is a minus, and a trailing `%` is kept in `text` (the value is the number as written: `45%` → 45).
 *
 * @example writtenNumbers('Revenue rose 12.5% to 1,234 units.') // [{ text: '12.5%', value: 12.5, decimals: 1 }, { text: '1,234', value: 1234, decimals: 0 }]
 */
export function writtenNumbers(text: string): WrittenNumber[] {
  const out: WrittenNumber[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const sign = m[1] === '' ? 1 : -1;
    const digits = (m[2] as string).replaceAll(',', '');
    const dot = digits.indexOf('.');
    const percent = text[(m.index ?? 0) + m[0].length] === '%' ? '%' : '';
    out.push({ text: m[0] + percent, value: sign * Number(digits), decimals: dot < 0 ? 0 : digits.length - dot - 1 });
  }
  return out;
}

/**
 * Sorts the numbers of a written answer (paper §3.2, SCHEMA): a number x written with d
 * decimals is **cited** when some returned cell c, c × 100, or the row count satisfies
 * |x − c| ≤ ½·10^−d; it is **ignored** when it appears in the question or hint or is an
 * integer from 1 to 5; otherwise it is **uncited**, which fires the uncited-number cap.
 * Numeric strings in cells count as numbers. Only the rows at hand are searched (a prefix for
 * truncated results), so a number cited from a row beyond the prefix reads as uncited.
 *
 * Source: the confidence-score paper §3.2 (SCHEMA); SPEC §8.
 *
 * @param text - the written answer.
 * @param result - the answer's final result.
 * @param context - question and hint texts whose numbers are ignored.
 * @example citeNumbers('There are 6 singers.', { columns: ['n'], rows: [[6]], rowCount: 1, truncated: false }, ['How many singers?'])
 * // { cited: [{ text: '6', value: 6, decimals: 0 }], ignored: [], uncited: [] }
 */
export function citeNumbers(text: string, result: QueryResultSummary, context: readonly string[]): CitationResult {
  const candidates: number[] = [result.rowCount];
  for (const row of result.rows) {
    for (const cell of row) {
      const n = cellNumber(cell);
      if (n !== undefined) candidates.push(n, n * 100);
    }
  }
  const contextValues = new Set(context.flatMap((t) => writtenNumbers(t).map((w) => w.value)));
  const cited: WrittenNumber[] = [];
  const ignored: WrittenNumber[] = [];
  const uncited: WrittenNumber[] = [];
  for (const w of writtenNumbers(text)) {
    const tolerance = 0.5 * 10 ** -w.decimals;
    // A relative 1e-9 slack absorbs binary rounding of cell × 100 without widening the rule.
    if (candidates.some((c) => Math.abs(w.value - c) <= tolerance + 1e-9 * Math.max(1, Math.abs(c)))) cited.push(w);
    else if (contextValues.has(w.value) || (Number.isInteger(w.value) && w.value >= 1 && w.value <= 5)) ignored.push(w);
    else uncited.push(w);
  }
  return { cited, ignored, uncited };
}

function cellNumber(cell: unknown): number | undefined {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : undefined;
  if (typeof cell === 'bigint') return Number(cell);
  if (typeof cell === 'string') {
    const t = cell.trim();
    if (t !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  }
  return undefined;
}

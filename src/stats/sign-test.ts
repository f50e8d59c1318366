import { regularizedIncompleteBeta } from './jstat.js';

/** Result of an exact two-sided sign test (see {@link signTest}). */
export interface SignTestResult {
  /** Values greater than 0 (e.g. questions fixed). */
  readonly positive: number;
  /** Values less than 0 (e.g. questions broken). */
  readonly negative: number;
  /** Values equal to 0, dropped from the test. */
  readonly zero: number;
  /** positive + negative: the number of trials of the binomial test. */
  readonly nonZero: number;
  /** Two-sided p-value in [0, 1]; exactly 1 when no value is non-zero. */
  readonly p: number;
  readonly method: 'exact-sign-test';
}

/**
 * Exact two-sided sign test of "positive and negative values are equally likely" on the
 * non-zero values: with m = min(positive, negative) and N = positive + negative,
 *
 *     p = min(1, 2 × P(X ≤ m)),  X ~ Binomial(N, ½)
 *
 * which equals `scipy.stats.binomtest(positive, N, 0.5).pvalue` (the distribution is symmetric).
 * Zeros (unchanged questions) are dropped; with no non-zero value p = 1. P(X ≤ m) is computed
 * as I_{½}(N − m, m + 1) with jstat's regularised incomplete beta, so small p-values keep their
 * relative precision (about 1e-8).
 *
 * Source: the regression-gate chapter, "Gate a change in CI" ("an exact sign test on the
 * questions that changed"); W. J. Dixon and A. M. Mood (1946), "The statistical sign test", JASA 41.
 *
 * @param values - finite numbers, any length (not mutated)
 * @throws RangeError when a value is not a finite number
 * @example signTest([1, -0.8, 0, 0]) // { positive: 1, negative: 1, zero: 2, nonZero: 2, p: 1 }
 */
export function signTest(values: readonly number[]): SignTestResult {
  let positive = 0;
  let negative = 0;
  let zero = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`signTest: every value must be a finite number, got ${v}`);
    if (v > 0) positive += 1;
    else if (v < 0) negative += 1;
    else zero += 1;
  }
  const nonZero = positive + negative;
  const m = Math.min(positive, negative);
  // With m = N / 2 (a tie) the one-sided tail is ≥ ½, so p = 1; also covers N = 0.
  const p = 2 * m >= nonZero ? 1 : Math.min(1, 2 * regularizedIncompleteBeta(0.5, nonZero - m, m + 1));
  return { positive, negative, zero, nonZero, p, method: 'exact-sign-test' };
}

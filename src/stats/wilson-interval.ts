import { normalQuantile } from './jstat.js';

/** A Wilson score interval for a proportion (see {@link wilsonInterval}). */
export interface WilsonInterval {
  /** k / n, a fraction in [0, 1]. */
  readonly estimate: number;
  /** Lower bound, a fraction in [0, 1]; exactly 0 when k = 0. */
  readonly low: number;
  /** Upper bound, a fraction in [0, 1]; exactly 1 when k = n. */
  readonly high: number;
  readonly k: number;
  readonly n: number;
  /** Two-sided confidence level, e.g. 0.95. */
  readonly confidence: number;
  readonly method: 'wilson';
}

/**
 * Wilson score interval for k successes in n trials. With p = k / n and z the two-sided
 * normal quantile for `confidence` (1.959963984540054 for 0.95, from jstat):
 *
 *     centre = (p + z² / 2n) / (1 + z² / n)
 *     half   = z × √( p(1 − p) / n + z² / 4n² ) / (1 + z² / n)
 *     interval = centre − half  to  centre + half
 *
 * The bounds are clamped to exactly 0 when k = 0 and exactly 1 when k = n (where the formula
 * gives them up to rounding error).
 *
 * Source: E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
 * inference", JASA 22; recommended for small n by Brown, Cai and DasGupta (2001); the formula as
 * printed in the regression-gate chapter ("Score more than accuracy"). Same as
 * `statsmodels.stats.proportion.proportion_confint(k, n, method="wilson")`.
 *
 * @param k - successes, a whole number in 0..n
 * @param n - trials, a whole number ≥ 1
 * @param confidence - two-sided level strictly between 0 and 1 (default 0.95)
 * @throws RangeError when n is not a whole number ≥ 1, k is not a whole number in 0..n, or
 *   confidence is not strictly between 0 and 1
 * @example wilsonInterval(15, 21) // { estimate: 0.714…, low: 0.500…, high: 0.862…, … } — the chapter's 0.50 to 0.86
 */
export function wilsonInterval(k: number, n: number, confidence = 0.95): WilsonInterval {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`wilsonInterval: n must be a whole number of trials ≥ 1, got ${n} (no interval exists for 0 trials)`);
  }
  if (!Number.isInteger(k) || k < 0 || k > n) {
    throw new RangeError(`wilsonInterval: k must be a whole number from 0 to n = ${n}, got ${k}`);
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`wilsonInterval: confidence must be strictly between 0 and 1, got ${confidence}`);
  }
  return wilsonBounds(k, n, confidence);
}

function wilsonBounds(k: number, n: number, confidence: number): WilsonInterval {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  const low = k === 0 ? 0 : Math.max(0, centre - half);
  const high = k === n ? 1 : Math.min(1, centre + half);
  return { estimate: p, low, high, k, n, confidence, method: 'wilson' };
}

/**
 * The Wilson score interval (the formula of {@link wilsonInterval}) for counts that are
 * averages, so not whole numbers: e.g. held-out counts averaged over repeated cross-fitting
 * splits, where each split holds every answer out once, so that the average counts carry the
 * sample size the data support (n answers), not n × splits.
 *
 * @param k - mean successes, a number in [0, n]
 * @param n - mean trials, a number > 0
 * @param confidence - two-sided level strictly between 0 and 1 (default 0.95)
 * @throws RangeError when n ≤ 0, k is outside [0, n], a value is not finite, or confidence is not in (0, 1)
 * @example averagedWilsonInterval(420.5, 455.25) // { estimate: 0.92367, low: 0.89558, high: 0.94467, … }
 */
export function averagedWilsonInterval(k: number, n: number, confidence = 0.95): WilsonInterval {
  if (!Number.isFinite(n) || n <= 0) throw new RangeError(`averagedWilsonInterval: n must be a number > 0, got ${n} (no interval exists for 0 trials)`);
  if (!Number.isFinite(k) || k < 0 || k > n) throw new RangeError(`averagedWilsonInterval: k must be a number from 0 to n = ${n}, got ${k}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`averagedWilsonInterval: confidence must be strictly between 0 and 1, got ${confidence}`);
  return wilsonBounds(k, n, confidence);
}

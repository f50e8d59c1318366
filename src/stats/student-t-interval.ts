import { studentTQuantile } from './jstat.js';

/** A Student-t interval for a mean; `kind: 'none'` when one value gives no interval. */
export type StudentTInterval =
  | {
      readonly kind: 'interval';
      /** Arithmetic mean of the values. */
      readonly mean: number;
      readonly low: number;
      readonly high: number;
      /** t multiplier × standard error; 0 when every value is equal. */
      readonly halfWidth: number;
      /** Sample standard deviation / √n. */
      readonly standardError: number;
      /** t quantile at (1 + confidence) / 2 with n − 1 degrees of freedom. */
      readonly tMultiplier: number;
      readonly degreesOfFreedom: number;
      readonly n: number;
      readonly confidence: number;
      readonly method: 'student-t';
    }
  | {
      readonly kind: 'none';
      readonly mean: number;
      /** 1 (or 0 where a caller has nothing to compare and says so itself). */
      readonly n: number;
      readonly confidence: number;
      /** Why there is no interval, for reports. */
      readonly reason: string;
      readonly method: 'student-t';
    };

/**
 * Two-sided Student-t confidence interval for the mean of `values` (for replaygate, the
 * per-question paired differences d = candidate − base):
 *
 *     mean ± t_{(1+confidence)/2, n−1} × s / √n,   s = sample standard deviation (n − 1 divisor)
 *
 * Edge cases, each explicit, never NaN: zero variance (every value equal) gives the interval
 * [mean, mean] with half-width 0; one value gives `kind: 'none'` with a reason (n − 1 = 0
 * degrees of freedom); no values is an error.
 *
 * Source: the regression-gate chapter, "Gate a change in CI" (mean paired difference with a t
 * interval, one fewer degrees of freedom than questions); E. Miller (2024), "Adding error bars to
 * evals", question-level paired differences. Quantile from jstat (`studentTQuantile`).
 *
 * @param values - finite numbers, length ≥ 1 (not mutated)
 * @param confidence - two-sided level strictly between 0 and 1 (default 0.95)
 * @throws RangeError when `values` is empty, holds a non-finite number, or confidence is not
 *   strictly between 0 and 1
 * @example studentTInterval([-0.8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) // mean 0.0167, low −0.228, high 0.262, tMultiplier 2.201, halfWidth 0.245
 */
export function studentTInterval(values: readonly number[], confidence = 0.95): StudentTInterval {
  const n = values.length;
  if (n === 0) throw new RangeError('studentTInterval: needs at least one value, got none');
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`studentTInterval: confidence must be strictly between 0 and 1, got ${confidence}`);
  }
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`studentTInterval: every value must be a finite number, got ${v}`);
  }
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  if (n === 1) {
    return {
      kind: 'none',
      mean,
      n: 1,
      confidence,
      reason: 'one value only: a t interval needs at least two (n − 1 = 0 degrees of freedom), so no interval exists',
      method: 'student-t',
    };
  }
  const degreesOfFreedom = n - 1;
  const tMultiplier = studentTQuantile(1 - (1 - confidence) / 2, degreesOfFreedom);
  // Sum of squared deviations from the mean (two-pass, so equal values give exactly 0).
  const squares = values.reduce((sum, v) => sum + (v - mean) * (v - mean), 0);
  const allEqual = values.every((v) => v === values[0]);
  const standardError = allEqual ? 0 : Math.sqrt(squares / degreesOfFreedom / n);
  const halfWidth = tMultiplier * standardError;
  return {
    kind: 'interval',
    mean: allEqual ? (values[0] as number) : mean,
    low: allEqual ? (values[0] as number) : mean - halfWidth,
    high: allEqual ? (values[0] as number) : mean + halfWidth,
    halfWidth,
    standardError,
    tMultiplier,
    degreesOfFreedom,
    n,
    confidence,
    method: 'student-t',
  };
}

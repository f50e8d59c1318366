/**
 * The small typed surface of jstat that the statistics use: quantiles of the standard normal
 * and Student's t distributions, and the regularised incomplete beta function (for exact
 * binomial tails). jstat ships no types; the ambient declaration in `jstat-module.d.ts`
 * declares only what is used here, and no other file imports jstat.
 *
 * Accuracy (checked against SciPy 1.17): `normalQuantile(0.975)` agrees to 1e-15,
 * `studentTQuantile(0.975, 11)` to 2e-8, `regularizedIncompleteBeta` to about 1e-8 relative.
 */
import jStat from 'jstat';

/**
 * Quantile (inverse CDF) of the standard normal distribution.
 *
 * @param p - probability, strictly between 0 and 1
 * @returns z with Φ(z) = p
 * @throws RangeError when p is not strictly between 0 and 1
 * @example normalQuantile(0.975) // 1.9599639845400545 (scipy.stats.norm.ppf(0.975) = 1.959963984540054)
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be strictly between 0 and 1, got ${p}`);
  return jStat.normal.inv(p, 0, 1);
}

/**
 * Quantile (inverse CDF) of Student's t distribution with `df` degrees of freedom.
 *
 * @param p - probability, strictly between 0 and 1
 * @param df - degrees of freedom, a positive number
 * @throws RangeError when p is not strictly between 0 and 1 or df is not positive
 * @example studentTQuantile(0.975, 11) // 2.2009851426503 (scipy.stats.t.ppf(0.975, 11) = 2.200985160082949)
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be strictly between 0 and 1, got ${p}`);
  if (!(df > 0) || !Number.isFinite(df)) throw new RangeError(`studentTQuantile: df must be a positive number, got ${df}`);
  return jStat.studentt.inv(p, df);
}

/**
 * Regularised incomplete beta function I_x(a, b), the CDF of Beta(a, b) at x. Used for exact
 * binomial tails: P(X ≤ k) for X ~ Binomial(n, p) equals I_{1−p}(n − k, k + 1).
 *
 * @param x - in [0, 1]
 * @param a - positive
 * @param b - positive
 * @throws RangeError when x is outside [0, 1] or a, b are not positive
 * @example regularizedIncompleteBeta(0.5, 10, 3) // 0.019287109375 (scipy.special.betainc(10, 3, 0.5))
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`regularizedIncompleteBeta: x must be in [0, 1], got ${x}`);
  if (!(a > 0) || !(b > 0)) throw new RangeError(`regularizedIncompleteBeta: a and b must be positive, got ${a}, ${b}`);
  if (x === 0) return 0;
  if (x === 1) return 1;
  return jStat.ibeta(x, a, b);
}

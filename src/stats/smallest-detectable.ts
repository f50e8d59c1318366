import { studentTInterval } from './student-t-interval.js';

/** The smallest clean change the mean rule can detect (see {@link smallestDetectable}). */
export type SmallestDetectable =
  | {
      readonly kind: 'detectable';
      /** Fewest questions that must flip cleanly (0 → 1, the rest unchanged). */
      readonly flips: number;
      /** Questions in the comparison. */
      readonly n: number;
      /** flips / n: the smallest mean paired difference the rule detects, a fraction. */
      readonly meanChange: number;
      readonly confidence: number;
    }
  | {
      readonly kind: 'none';
      readonly n: number;
      readonly confidence: number;
      readonly reason: string;
    };

/**
 * Fewest clean flips the mean rule detects on n questions: the smallest k such that k
 * differences of 1 and n − k differences of 0 give a Student-t interval (at `confidence`)
 * whose lower bound is above zero. Breaks mirror it (k differences of −1 put the interval
 * wholly below zero). Since k = n has zero variance, the interval is [1, 1] and every n ≥ 2 has
 * an answer; n = 1 has no t interval and gets `kind: 'none'`.
 *
 * Source: the regression-gate chapter, "Gate a change in CI" (`smallest_detectable`): "the
 * fewest questions that must turn from always wrong to always right, the rest unchanged, for the
 * interval to exclude zero is 4 of 12, a mean change of 0.33".
 *
 * @param n - number of questions compared, a whole number ≥ 1
 * @param confidence - two-sided level strictly between 0 and 1 (default 0.95)
 * @throws RangeError when n is not a whole number ≥ 1
 * @example smallestDetectable(12) // { kind: 'detectable', flips: 4, n: 12, meanChange: 0.333…, confidence: 0.95 }
 */
export function smallestDetectable(n: number, confidence = 0.95): SmallestDetectable {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`smallestDetectable: n must be a whole number of questions ≥ 1, got ${n}`);
  }
  if (n === 1) {
    return { kind: 'none', n, confidence, reason: 'one question only: no t interval exists, so the mean rule detects nothing' };
  }
  // The lower bound k/n − t·√(k(n−k)/(n(n−1)))/√n rises with k, so the first k that clears zero
  // is the answer; building each interval keeps the definition literal (n is at most thousands).
  for (let flips = 1; flips <= n; flips += 1) {
    const values = Array.from({ length: n }, (_, i) => (i < flips ? 1 : 0));
    const interval = studentTInterval(values, confidence);
    if (interval.kind === 'interval' && interval.low > 0) {
      return { kind: 'detectable', flips, n, meanChange: flips / n, confidence };
    }
  }
  /* c8 ignore next */
  throw new Error(`smallestDetectable: unreachable for n = ${n} (k = n has interval [1, 1])`);
}

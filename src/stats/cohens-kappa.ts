import type { ConfusionTable } from './confusion-table.js';
import { tableMargins } from './table-margins.js';

/**
 * A chance-corrected agreement statistic between two raters on the same cases (Cohen's kappa
 * or Scott's pi), with its parts.
 *
 * Undefined cases are explicit, never NaN: `value` is `null` with a `reason` when there are no
 * cases, or when the expected (chance) agreement is 1 — which happens exactly when both raters
 * gave every case one and the same label, so that observed agreement is also 1 and the
 * statistic is 0 / 0. We do not report 1 there (that would claim a skill the cases cannot
 * show: a rater that always says "incorrect" agrees perfectly with a reference that happens to
 * be all "incorrect") nor 0 (that would claim there is none). scikit-learn returns `nan`.
 */
export interface ChanceCorrectedAgreement {
  readonly method: 'cohens-kappa' | 'scotts-pi';
  /** Number of cases. */
  readonly n: number;
  /** p_o: share of cases both raters labelled alike, a fraction in [0, 1]; null when n = 0. */
  readonly observed: number | null;
  /** p_e: agreement expected by chance under the method's model, in [0, 1]; null when n = 0. */
  readonly expected: number | null;
  /** (p_o − p_e) / (1 − p_e), in [−1, 1]; null when undefined (see `reason`). */
  readonly value: number | null;
  /** Why `value` is null. */
  readonly reason?: string;
}

/**
 * Cohen's kappa of a square table of two raters' counts (rows = first rater, e.g. the
 * reference; columns = second rater, e.g. the judge), for 2 or more categories:
 *
 *     p_o = Σ_i n_ii / n
 *     p_e = Σ_i (row_i / n) × (column_i / n)      (each rater's own label shares)
 *     κ   = (p_o − p_e) / (1 − p_e)
 *
 * computed from whole numbers as (n·Σn_ii − Σ row_i·column_i) / (n² − Σ row_i·column_i), so
 * that "p_e = 1" is an exact test. Same definition as
 * `sklearn.metrics.cohen_kappa_score(y1, y2)` (unweighted).
 *
 * Source: J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and
 * Psychological Measurement 20; the regression-gate chapter, "Calibrate the judge against
 * reference labels" (formulas for p_o, chance κ and kappa).
 *
 * @param table - a {@link ConfusionTable} (its labels name the single label in the p_e = 1
 *   reason) or its bare k × k counts of non-negative whole numbers, k ≥ 1.
 * @returns the statistic; `value` null with a reason when n = 0 or p_e = 1 (never NaN).
 * @throws RangeError when the table is empty, not square, or holds a non-whole or negative count.
 * @example
 * // The chapter's 56 calibration cases: reference correct 26 (judge: 16 correct, 10 incorrect),
 * // reference incorrect 30 (judge: 4 correct, 26 incorrect).
 * cohensKappa([[16, 10], [4, 26]]).value // 0.4895833333333333 (the chapter's 0.49); observed 0.75
 */
export function cohensKappa(table: ConfusionTable | readonly (readonly number[])[]): ChanceCorrectedAgreement {
  const { n, agreed, rowSums, columnSums, singleLabel } = tableMargins(table);
  if (n === 0) return { method: 'cohens-kappa', n, observed: null, expected: null, value: null, reason: 'no cases' };
  let chanceTimesN2 = 0;
  rowSums.forEach((row, i) => {
    chanceTimesN2 += row * columnSums[i]!;
  });
  const observed = agreed / n;
  const expected = chanceTimesN2 / (n * n);
  if (singleLabel !== null) {
    return {
      method: 'cohens-kappa', n, observed, expected: 1, value: null,
      reason: `expected agreement is 1 (one label only: both raters said ${JSON.stringify(singleLabel)} on all ${n} cases), so kappa is 0/0`,
    };
  }
  const value = (n * agreed - chanceTimesN2) / (n * n - chanceTimesN2);
  return { method: 'cohens-kappa', n, observed, expected, value };
}


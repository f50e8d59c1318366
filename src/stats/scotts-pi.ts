import type { ChanceCorrectedAgreement } from './cohens-kappa.js';
import type { ConfusionTable } from './confusion-table.js';
import { tableMargins } from './table-margins.js';

/**
 * Scott's pi of a square table of two raters' counts (rows = first rater, columns = second),
 * for 2 or more categories. Like Cohen's kappa, but chance agreement comes from the two
 * raters' label shares pooled, so a rater that uses a label more often than the other is not
 * excused by its own bias:
 *
 *     p_o = Σ_i n_ii / n
 *     p_e = Σ_i ((row_i + column_i) / 2n)²
 *     π   = (p_o − p_e) / (1 − p_e)
 *
 * computed from whole numbers as (4n·Σn_ii − Σ(row_i + column_i)²) / (4n² − Σ(row_i + column_i)²).
 * π ≤ κ always (equal when both raters use each label equally often). Edge cases as in
 * {@link ChanceCorrectedAgreement}: `value` null with a reason when n = 0 or p_e = 1 (both
 * raters gave one and the same label to every case), never NaN.
 *
 * Source: W. A. Scott (1955), "Reliability of content analysis: the case of nominal scale
 * coding", Public Opinion Quarterly 19; Artstein and Poesio (2008), "Inter-coder agreement for
 * computational linguistics" §2.4; the regression-gate chapter, "Calibrate the judge against
 * reference labels" (chance π = Σ over labels (the label's share of both raters' labels pooled)²).
 *
 * @param table - a {@link ConfusionTable} or its bare k × k counts, k ≥ 1.
 * @throws RangeError when the table is empty, not square, or holds a non-whole or negative count.
 * @example
 * scottsPi([[16, 10], [4, 26]]).value // 0.4835309617918313 (the chapter's 0.48 on its 56 cases)
 */
export function scottsPi(table: ConfusionTable | readonly (readonly number[])[]): ChanceCorrectedAgreement {
  const { n, agreed, rowSums, columnSums, singleLabel } = tableMargins(table);
  if (n === 0) return { method: 'scotts-pi', n, observed: null, expected: null, value: null, reason: 'no cases' };
  let pooledSquares = 0;
  rowSums.forEach((row, i) => {
    const pooled = row + columnSums[i]!;
    pooledSquares += pooled * pooled;
  });
  const observed = agreed / n;
  if (singleLabel !== null) {
    return {
      method: 'scotts-pi', n, observed, expected: 1, value: null,
      reason: `expected agreement is 1 (one label only: both raters said ${JSON.stringify(singleLabel)} on all ${n} cases), so pi is 0/0`,
    };
  }
  const fourN2 = 4 * n * n;
  const value = (4 * n * agreed - pooledSquares) / (fourN2 - pooledSquares);
  return { method: 'scotts-pi', n, observed, expected: pooledSquares / fourN2, value };
}

import { cohensKappa } from './cohens-kappa.js';
import type { ConfusionTable } from './confusion-table.js';
import { tableMargins } from './table-margins.js';

/** The range of Cohen's kappa over all one-verdict changes (see {@link kappaRange}). */
export interface KappaRange {
  /** Smallest kappa after changing any one second-rater label; null when no change gives a defined kappa. */
  readonly low: number | null;
  /** Largest such kappa; null when no change gives a defined kappa. */
  readonly high: number | null;
  /** Number of distinct one-verdict changes tried (n × (k − 1), counting each case). */
  readonly changes: number;
  /** Of those, how many leave kappa undefined (p_e = 1), and so are left out of low/high. */
  readonly undefinedChanges: number;
}

/**
 * How far one verdict moves Cohen's kappa: the smallest and largest kappa over every table
 * obtained by changing the second rater's label (the judge's verdict) on exactly one case to
 * any other label, the first rater's (the reference) staying fixed. With a few dozen cases,
 * this says which decimal of kappa to read.
 *
 * Cases in the same cell are interchangeable, so each non-empty cell (i, j) and each other
 * label l ≠ j gives one table: counts[i][j] − 1, counts[i][l] + 1. Changes that make kappa
 * undefined (both raters then use one label only) are counted in `undefinedChanges` and left
 * out of the range, never NaN.
 *
 * Source: the regression-gate chapter, "Calibrate the judge against reference labels"
 * (`kappa_one_verdict`: on its 56 cases, "kappa with any one verdict changed: 0.45 to 0.53").
 *
 * @param table - a {@link ConfusionTable} or its bare k × k counts (rows = reference,
 *   columns = judge), k ≥ 2 for a change to exist.
 * @throws RangeError when the table is empty, not square, or holds a non-whole or negative count.
 * @example kappaRange([[16, 10], [4, 26]]) // { low: 0.4516971279373368, high: 0.5272727272727272, changes: 56, undefinedChanges: 0 }
 */
export function kappaRange(table: ConfusionTable | readonly (readonly number[])[]): KappaRange {
  const counts = Array.isArray(table) ? (table as readonly (readonly number[])[]) : (table as ConfusionTable).counts;
  tableMargins(counts);
  let low: number | null = null;
  let high: number | null = null;
  let changes = 0;
  let undefinedChanges = 0;
  const k = counts.length;
  for (let i = 0; i < k; i += 1) {
    for (let j = 0; j < k; j += 1) {
      const cell = counts[i]![j]!;
      if (cell === 0) continue;
      for (let l = 0; l < k; l += 1) {
        if (l === j) continue;
        changes += cell;
        const changed = counts.map((row, r) => row.map((count, c) => (r === i && c === j ? count - 1 : r === i && c === l ? count + 1 : count)));
        const { value } = cohensKappa(changed);
        if (value === null) {
          undefinedChanges += cell;
          continue;
        }
        low = low === null ? value : Math.min(low, value);
        high = high === null ? value : Math.max(high, value);
      }
    }
  }
  return { low, high, changes, undefinedChanges };
}

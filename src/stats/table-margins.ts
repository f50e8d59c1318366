/** Whole-number margins of a square contingency table (see {@link tableMargins}). */
export interface TableMargins {
  /** Number of cases: the sum of all counts. */
  readonly n: number;
  /** Cases both raters labelled alike: the sum of the diagonal. */
  readonly agreed: number;
  /** Per label, cases the first rater (rows) gave it. */
  readonly rowSums: readonly number[];
  /** Per label, cases the second rater (columns) gave it. */
  readonly columnSums: readonly number[];
  /**
   * The label both raters gave to every case, when there is one (then chance agreement is 1
   * and kappa and pi are undefined); the label's name when the table has labels, else `#i`
   * (1-based); null otherwise and when n = 0.
   */
  readonly singleLabel: string | null;
}

import type { ConfusionTable } from './confusion-table.js';

/**
 * Validates a square table of counts and returns its margins, as whole numbers (so that
 * chance-corrected statistics can be computed from integers and compared exactly).
 *
 * @param table - a {@link ConfusionTable}, or its bare k × k counts (k ≥ 1, non-negative whole
 *   numbers; rows = first rater).
 * @throws RangeError when the table is empty, not square, or holds a count that is not a
 *   non-negative whole number.
 * @example tableMargins([[16, 10], [4, 26]]) // { n: 56, agreed: 42, rowSums: [26, 30], columnSums: [20, 36], singleLabel: null }
 */
export function tableMargins(table: ConfusionTable | readonly (readonly number[])[]): TableMargins {
  const counts = isConfusionTable(table) ? table.counts : table;
  const labels = isConfusionTable(table) ? table.labels : undefined;
  if (labels !== undefined && labels.length !== counts.length) {
    throw new RangeError(`tableMargins: ${labels.length} labels for a table of ${counts.length} rows`);
  }
  const k = counts.length;
  if (k === 0) throw new RangeError('tableMargins: the table has no labels (0 × 0)');
  const rowSums = new Array<number>(k).fill(0);
  const columnSums = new Array<number>(k).fill(0);
  let agreed = 0;
  let n = 0;
  counts.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`tableMargins: the table must be square, row ${i} has ${row.length} cells for ${k} labels`);
    row.forEach((count, j) => {
      if (!Number.isInteger(count) || count < 0) {
        throw new RangeError(`tableMargins: counts must be non-negative whole numbers, cell [${i}][${j}] is ${count}`);
      }
      rowSums[i]! += count;
      columnSums[j]! += count;
      n += count;
      if (i === j) agreed += count;
    });
  });
  const only = n === 0 ? -1 : rowSums.findIndex((sum, i) => sum === n && columnSums[i] === n);
  const singleLabel = only < 0 ? null : (labels?.[only] ?? `#${only + 1}`);
  return { n, agreed, rowSums, columnSums, singleLabel };
}

function isConfusionTable(table: ConfusionTable | readonly (readonly number[])[]): table is ConfusionTable {
  return !Array.isArray(table);
}

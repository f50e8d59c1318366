import type { Cell } from '../warehouse/types.js';
import type { QueryResultSummary } from '../agent/types.js';
import type { ResultMatcher, Sample } from './types.js';

/**
 * A strict signature of a result: the number of columns and the multiset of whole rows
 * (column names ignored, row order ignored), floats rounded to `decimals` places, integers and
 * equal floats alike, NULL equal to NULL. Two results have the same signature exactly when they
 * are equal under strict matching, so signatures cluster samples (an equivalence).
 * An incomplete result (truncated / prefix kept) also carries its row count.
 *
 * Source: the confidence-score paper §3.2 (L2 clusters by "the signature of their result set
 * (full rows, floats rounded to six places)") and §8 ("strict matching (same columns, same
 * multiset of rows) is an equivalence").
 *
 * @param result - the result.
 * @param decimals - places kept for non-integer numbers (6 for the designed L2, 4 for the §8 comparison).
 * @example strictSignature({ columns: ['a'], rows: [[0.1234567]], rowCount: 1, truncated: false }, 6) // '1|n:0.123457'
 */
export function strictSignature(result: QueryResultSummary, decimals: number): string {
  const rows = result.rows.map((row) => row.map((cell) => cellKey(cell as Cell, decimals)).join('\u0001'));
  rows.sort();
  const incomplete = result.truncated || result.rows.length < result.rowCount ? `|of ${result.rowCount}` : '';
  return `${result.columns.length}${incomplete}|${rows.join('\u0002')}`;
}

function cellKey(cell: Cell, decimals: number): string {
  if (cell === null || cell === undefined) return 'null';
  if (typeof cell === 'number') {
    if (Number.isInteger(cell)) return `n:${cell === 0 ? 0 : cell}`;
    const scale = 10 ** decimals;
    const rounded = Math.round(cell * scale) / scale;
    return `n:${rounded === 0 ? 0 : rounded}`;
  }
  if (typeof cell === 'bigint') return `n:${cell.toString()}`;
  if (typeof cell === 'string') return `s:${cell}`;
  if (cell instanceof Uint8Array) return `b:${Buffer.from(cell).toString('hex')}`;
  return `s:${String(cell)}`;
}

/**
 * Cluster sizes of the samples by strict signature; a sample with no result is its own cluster
 * (paper §3.2). Sizes are listed in order of each cluster's first sample.
 *
 * @param samples - the K samples.
 * @param decimals - rounding of floats in the signature (6 in the designed score).
 * @example strictClusterSizes([s(1), s(1), s(2), none], 6) // [2, 1, 1]
 */
export function strictClusterSizes(samples: readonly Sample[], decimals: number): number[] {
  const sizes = new Map<string, number>();
  let alone = 0;
  for (const sample of samples) {
    if (sample.result === undefined) {
      sizes.set(`#none${alone}`, 1);
      alone += 1;
      continue;
    }
    const key = strictSignature(sample.result, decimals);
    sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  return [...sizes.values()];
}

/**
 * Greedy relaxed clustering (paper §8): in sample order, each sample joins the first cluster
 * whose first member it matches under `match`, else starts a new one; a sample with no result
 * is its own cluster. Relaxed matching is not transitive, so other procedures can give other
 * clusters; this one is reported as secondary.
 *
 * @param samples - the K samples in draw order.
 * @param match - the relaxed matcher.
 * @example relaxedClusterSizes(samples, match) // [4, 1]
 */
export function relaxedClusterSizes(samples: readonly Sample[], match: ResultMatcher): number[] {
  const clusters: { first: QueryResultSummary | undefined; size: number }[] = [];
  for (const sample of samples) {
    const result = sample.result;
    const home = result === undefined ? undefined : clusters.find((c) => c.first !== undefined && match(c.first, result));
    if (home === undefined) clusters.push({ first: result, size: 1 });
    else home.size += 1;
  }
  return clusters.map((c) => c.size);
}

/**
 * The designed score's scaled entropy term over a clustering of the K samples,
 *
 *     L2 = 1 − H(π) / log K,   π_c = |cluster c| / K,   H(π) = −Σ_c π_c log π_c,
 *
 * in [0, 1]: 1 when all samples fall in one cluster, 0 when every sample is alone. It depends
 * only on the multiset of cluster sizes, so it takes the same value whether the shown answer
 * is in the largest cluster or alone (the paper's Proposition 1).
 *
 * Source: the confidence-score paper §3.2, eq. (3), and §3.3, Proposition 1; L. Kuhn, Y. Gal and
 * S. Farquhar (2023), "Semantic uncertainty", ICLR.
 *
 * @param clusterSizes - sizes of the clusters, whole numbers ≥ 1 summing to K.
 * @returns the term, or `undefined` for K = 1 (log K = 0: one sample says nothing about spread).
 * @throws RangeError when a size is not a whole number ≥ 1, or there are no samples.
 * @example entropyTerm([4, 1]) // 0.6890824929174288 (K = 5, π = (0.8, 0.2))
 */
export function entropyTerm(clusterSizes: readonly number[]): number | undefined {
  let k = 0;
  for (const size of clusterSizes) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`entropyTerm: cluster sizes must be whole numbers ≥ 1, got ${size}`);
    }
    k += size;
  }
  if (k === 0) throw new RangeError('entropyTerm: no samples');
  if (k === 1) return undefined;
  let h = 0;
  for (const size of clusterSizes) {
    const p = size / k;
    h -= p * Math.log(p);
  }
  return Math.max(0, 1 - h / Math.log(k));
}

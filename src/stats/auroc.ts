/**
 * Area under the ROC curve of a score against binary labels, or the reason it is undefined.
 * - `value`: in [0, 1]; 0.5 means no ranking information, 1 a perfect ranking of positives above negatives.
 * - `positives` / `negatives`: how many labels are true / false.
 */
export type AurocResult =
  | { readonly defined: true; readonly value: number; readonly positives: number; readonly negatives: number }
  | { readonly defined: false; readonly reason: string; readonly positives: number; readonly negatives: number };

/**
 * AUROC by the Mann–Whitney statistic: the probability that a randomly chosen positive item
 * scores above a randomly chosen negative one, ties counting one half,
 *
 *     AUROC = (Σ_{i∈pos} Σ_{j∈neg} ([s_i > s_j] + ½·[s_i = s_j])) / (|pos| · |neg|),
 *
 * computed in O(n log n) by one sort and a pass over groups of tied scores. Equals
 * `sklearn.metrics.roc_auc_score(labels, scores)` (whose trapezoidal area counts ties one half
 * too) and `scipy.stats.mannwhitneyu(pos, neg).statistic / (|pos|·|neg|)`.
 *
 * With a single class (no positive or no negative label) the AUROC is undefined: the result is
 * `{ defined: false, reason }`, never NaN and never an exception (sklearn raises instead).
 *
 * Source: the confidence-score paper §4.4 ("Ties in a discrete score count one half in AUROC");
 * J. A. Hanley and B. J. McNeil (1982), "The meaning and use of the area under a ROC curve",
 * Radiology 143(1).
 *
 * @param scores - finite numbers, one per item (higher = more confident the item is positive); not mutated.
 * @param labels - one per item, same order; `true` = positive (e.g. the answer is correct).
 * @throws RangeError when the lengths differ or a score is not a finite number.
 * @example auroc([0.1, 0.4, 0.35, 0.8], [false, false, true, true]) // { defined: true, value: 0.75, positives: 2, negatives: 2 }
 */
export function auroc(scores: readonly number[], labels: readonly boolean[]): AurocResult {
  if (scores.length !== labels.length) {
    throw new RangeError(`auroc: ${scores.length} scores but ${labels.length} labels; give one label per score`);
  }
  let positives = 0;
  for (let i = 0; i < scores.length; i += 1) {
    const s = scores[i] as number;
    if (!Number.isFinite(s)) throw new RangeError(`auroc: score ${i} is not a finite number (${s})`);
    if (labels[i] === true) positives += 1;
  }
  const negatives = scores.length - positives;
  if (positives === 0 || negatives === 0) {
    return {
      defined: false,
      reason:
        scores.length === 0
          ? 'no items'
          : `only one class among the labels (${positives} positive, ${negatives} negative): AUROC needs both`,
      positives,
      negatives,
    };
  }
  const order = Array.from(scores.keys()).sort((a, b) => (scores[a] as number) - (scores[b] as number));
  // Walk groups of equal scores from the lowest: each positive in a group beats every negative
  // below it and ties the negatives inside it.
  let u = 0;
  let negativesBelow = 0;
  let g = 0;
  while (g < order.length) {
    const groupScore = scores[order[g] as number] as number;
    let pos = 0;
    let neg = 0;
    let h = g;
    while (h < order.length && scores[order[h] as number] === groupScore) {
      if (labels[order[h] as number] === true) pos += 1;
      else neg += 1;
      h += 1;
    }
    u += pos * negativesBelow + 0.5 * pos * neg;
    negativesBelow += neg;
    g = h;
  }
  return { defined: true, value: u / (positives * negatives), positives, negatives };
}

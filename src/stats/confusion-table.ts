/**
 * A square contingency table of two raters' labels on the same cases: `counts[i][j]` is the
 * number of cases the first rater labelled `labels[i]` and the second rater `labels[j]`.
 */
export interface ConfusionTable {
  /** The label set, in a fixed order (first-seen order unless given). */
  readonly labels: readonly string[];
  /** k × k non-negative whole counts; rows = first rater, columns = second rater. */
  readonly counts: readonly (readonly number[])[];
}

/**
 * Cross-tabulates two raters' labels on the same cases into a {@link ConfusionTable}.
 *
 * Used by the judge calibration: the first rater is the reference (execution match), the
 * second the judge. Labels are compared as exact strings.
 *
 * @param first - labels of the first rater (e.g. the reference), one per case.
 * @param second - labels of the second rater (e.g. the judge), same length and case order.
 * @param labels - the label set and its order; default: the labels of `first` then `second`
 *   in first-seen order. Give it when a label may be absent (e.g. `['correct', 'incorrect']`),
 *   so that tables of subsets have the same shape.
 * @throws RangeError when the lengths differ, or a label is not in `labels`.
 * @example
 * confusionTable(['correct', 'correct', 'incorrect'], ['correct', 'incorrect', 'incorrect'])
 * // → { labels: ['correct', 'incorrect'], counts: [[1, 1], [0, 1]] }
 */
export function confusionTable(
  first: readonly string[],
  second: readonly string[],
  labels?: readonly string[],
): ConfusionTable {
  if (first.length !== second.length) {
    throw new RangeError(`confusionTable: the raters labelled different numbers of cases (${first.length} vs ${second.length})`);
  }
  const order = labels !== undefined ? [...labels] : [...new Set([...first, ...second])];
  const index = new Map(order.map((label, i) => [label, i] as const));
  if (index.size !== order.length) throw new RangeError('confusionTable: duplicate label in `labels`');
  const counts = order.map(() => order.map(() => 0));
  for (let c = 0; c < first.length; c += 1) {
    const i = index.get(first[c]!);
    const j = index.get(second[c]!);
    if (i === undefined || j === undefined) {
      const bad = i === undefined ? first[c] : second[c];
      throw new RangeError(`confusionTable: label ${JSON.stringify(bad)} of case ${c} is not one of ${JSON.stringify(order)}`);
    }
    counts[i]![j]! += 1;
  }
  return { labels: order, counts };
}

/** One attainable operating point: show every answer scoring at least `threshold`. */
export interface CoveragePoint {
  readonly threshold: number;
  /** Answers shown at this threshold. */
  readonly shown: number;
  /** shown / n, in (0, 1]. */
  readonly coverage: number;
  /** Right answers among those shown / shown. */
  readonly accuracy: number;
}

/**
 * The accuracy–coverage curve of a score: for every distinct score value t, from the highest
 * down, the share of answers with score ≥ t and the accuracy of those (paper Figure 4). Only
 * attainable thresholds are listed, so a discrete score (agreement over K = 5) gives at most six
 * points; lines between points are visual guides. Selective risk is 1 − accuracy.
 *
 * Source: the confidence-score paper §8, Figure 4; Y. Geifman and R. El-Yaniv (2017),
 * "Selective classification for deep neural networks", NeurIPS (risk–coverage curve).
 *
 * @param scores - one per answer.
 * @param labels - one per answer, same order; `true` = right.
 * @returns points in order of increasing coverage; empty for no answers.
 * @throws RangeError when the lengths differ or a score is not finite.
 * @example accuracyCoverage([1, 1, 0.6, 0.2], [true, true, false, true])
 * // [{ threshold: 1, shown: 2, coverage: 0.5, accuracy: 1 }, { threshold: 0.6, shown: 3, coverage: 0.75, accuracy: 0.666… },
 * //  { threshold: 0.2, shown: 4, coverage: 1, accuracy: 0.75 }]
 */
export function accuracyCoverage(scores: readonly number[], labels: readonly boolean[]): CoveragePoint[] {
  if (scores.length !== labels.length) throw new RangeError(`accuracyCoverage: ${scores.length} scores but ${labels.length} labels`);
  const order = Array.from(scores.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number));
  const points: CoveragePoint[] = [];
  let shown = 0;
  let right = 0;
  for (let p = 0; p < order.length; p += 1) {
    const i = order[p] as number;
    const s = scores[i] as number;
    if (!Number.isFinite(s)) throw new RangeError(`accuracyCoverage: score ${i} is not a finite number (${s})`);
    shown += 1;
    if (labels[i] === true) right += 1;
    const next = order[p + 1];
    if (next === undefined || scores[next] !== s) {
      points.push({ threshold: s, shown, coverage: shown / order.length, accuracy: right / shown });
    }
  }
  return points;
}

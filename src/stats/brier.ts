/**
 * Brier score of probabilistic predictions of a binary outcome: the mean squared difference
 * between the predicted probability and the outcome (1 = true, 0 = false),
 *
 *     Brier = (1/n) Σ_i (p_i − y_i)²,
 *
 * in [0, 1], lower is better; 0.25 for a constant prediction of 0.5. Equals
 * `sklearn.metrics.brier_score_loss(labels, probabilities)`.
 *
 * Source: the confidence-score paper §4.4 and Table 9; G. W. Brier (1950), "Verification of
 * forecasts expressed in terms of probability", Monthly Weather Review 78(1).
 *
 * @param probabilities - numbers in [0, 1], one per item; not mutated.
 * @param labels - one per item, same order; `true` = the outcome happened (the answer is correct).
 * @returns the score, or `undefined` for no items (a mean over nothing; never NaN).
 * @throws RangeError on different lengths or a probability outside [0, 1].
 * @example brierScore([0.1, 0.9, 0.8, 0.3], [false, true, true, false]) // 0.0375
 */
export function brierScore(probabilities: readonly number[], labels: readonly boolean[]): number | undefined {
  if (probabilities.length !== labels.length) {
    throw new RangeError(`brierScore: ${probabilities.length} probabilities but ${labels.length} labels`);
  }
  if (probabilities.length === 0) return undefined;
  let sum = 0;
  probabilities.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`brierScore: probability ${i} must be in [0, 1], got ${p}`);
    const y = labels[i] === true ? 1 : 0;
    sum += (p - y) * (p - y);
  });
  return sum / probabilities.length;
}

/** Expected calibration error and the bins it was computed from. */
export interface CalibrationResult {
  /** Σ_b (n_b / n) · |accuracy_b − mean confidence_b|, in [0, 1]; 0 for no items. */
  readonly ece: number;
  /** One entry per bin, lowest first; empty bins have `count: 0` and zero means. */
  readonly bins: readonly {
    readonly low: number;
    readonly high: number;
    readonly count: number;
    readonly meanConfidence: number;
    readonly accuracy: number;
  }[];
}

/**
 * Expected calibration error over equal-width bins of [0, 1]: items are binned by confidence,
 * and ECE is the item-weighted mean absolute gap between each bin's accuracy and its mean
 * confidence. Bin b of B holds confidences in [b/B, (b+1)/B), except that the top bin is closed:
 * a confidence of exactly 1.0 falls in the top bin and 0.0 in the bottom one. The bin index is
 * min(⌊c·B⌋, B − 1), so the boundary 0.3 belongs to the bin [0.3, 0.4).
 *
 * With no items the ECE is 0 (nothing is miscalibrated) and every bin is empty.
 *
 * Source: the confidence-score paper §4.4 and Table 9 ("expected calibration error over 10
 * equal-width bins"); C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017), "On calibration of
 * modern neural networks", ICML, eq. (3).
 *
 * @param confidences - numbers in [0, 1], one per item; not mutated.
 * @param labels - one per item, same order; `true` = correct.
 * @param binCount - number of equal-width bins, a whole number ≥ 1 (default 10).
 * @throws RangeError on different lengths, a confidence outside [0, 1] or not a number, or a bad bin count.
 * @example expectedCalibrationError([0.95, 1.0], [true, false]).ece // 0.475 (one bin: |0.5 − 0.975|)
 */
export function expectedCalibrationError(
  confidences: readonly number[],
  labels: readonly boolean[],
  binCount = 10,
): CalibrationResult {
  if (confidences.length !== labels.length) {
    throw new RangeError(`expectedCalibrationError: ${confidences.length} confidences but ${labels.length} labels`);
  }
  if (!Number.isInteger(binCount) || binCount < 1) {
    throw new RangeError(`expectedCalibrationError: binCount must be a whole number ≥ 1, got ${binCount}`);
  }
  const count = new Array<number>(binCount).fill(0);
  const sumConfidence = new Array<number>(binCount).fill(0);
  const correct = new Array<number>(binCount).fill(0);
  confidences.forEach((c, i) => {
    if (!(c >= 0 && c <= 1)) {
      throw new RangeError(`expectedCalibrationError: confidence ${i} must be in [0, 1], got ${c}`);
    }
    const b = Math.min(Math.floor(c * binCount), binCount - 1);
    count[b] = (count[b] as number) + 1;
    sumConfidence[b] = (sumConfidence[b] as number) + c;
    if (labels[i] === true) correct[b] = (correct[b] as number) + 1;
  });
  const n = confidences.length;
  let ece = 0;
  const bins = count.map((m, b) => {
    const meanConfidence = m === 0 ? 0 : (sumConfidence[b] as number) / m;
    const accuracy = m === 0 ? 0 : (correct[b] as number) / m;
    if (m > 0) ece += (m / n) * Math.abs(accuracy - meanConfidence);
    return { low: b / binCount, high: (b + 1) / binCount, count: m, meanConfidence, accuracy };
  });
  return { ece, bins };
}

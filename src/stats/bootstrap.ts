import { auroc } from './auroc.js';
import type { Random } from './random.js';

/** Options of the bootstrap intervals. */
export interface BootstrapOptions {
  /** A fresh seeded generator ({@link createRandom}); the same seed gives the same resamples. */
  readonly random: Random;
  /** Number of resamples of the items, a whole number ≥ 1 (default 2,000, as in the paper §4.4). */
  readonly resamples?: number;
  /** Two-sided coverage of the interval, in (0, 1) (default 0.95). */
  readonly level?: number;
}

/**
 * A percentile bootstrap interval, or the reason there is none.
 * - `estimate`: the statistic on the items themselves (not the bootstrap mean).
 * - `low` / `high`: the (1 − level)/2 and (1 + level)/2 quantiles of the resampled statistic
 *   (linear interpolation between order statistics, NumPy's default `np.quantile` method).
 * - `resamples`: resamples drawn; `discarded`: those with a single class, where AUROC is
 *   undefined; they are left out of the quantiles (rare unless one class has very few items).
 */
export type BootstrapInterval =
  | {
      readonly defined: true;
      readonly estimate: number;
      readonly low: number;
      readonly high: number;
      readonly level: number;
      readonly resamples: number;
      readonly discarded: number;
      readonly method: 'percentile-bootstrap';
    }
  | { readonly defined: false; readonly reason: string };

/**
 * Percentile bootstrap interval of the AUROC (ties one half): resample the n items with
 * replacement `resamples` times, compute the AUROC of each resample, and take the quantiles.
 *
 * Each resample costs O(n): the items are sorted by score once, and a resample is a vector of
 * multiplicities walked in that order (AUROC of a weighted sample). n = 1,534 with 2,000
 * resamples takes about 30 ms on one core.
 *
 * Source: the confidence-score paper §4.4 ("AUROC with a 95% interval from 2,000 bootstrap
 * resamples of answers"); B. Efron and R. J. Tibshirani (1993), An Introduction to the
 * Bootstrap, ch. 13 (percentile interval).
 *
 * @param scores - finite numbers, one per item; not mutated.
 * @param labels - one per item; `true` = positive.
 * @param options - the seeded generator, resamples (default 2,000) and level (default 0.95).
 * @returns `{ defined: false, reason }` when the AUROC of the items is undefined (one class) or
 *   every resample had one class; never NaN.
 * @throws RangeError on different lengths, a non-finite score, or bad options.
 * @example
 * bootstrapAurocInterval([0.1, 0.4, 0.35, 0.8, 0.7, 0.2], [false, false, true, true, true, false],
 *   { random: createRandom(1) })
 * // { defined: true, estimate: 0.888…, low: 0.5, high: 1, level: 0.95, resamples: 2000, ... }
 */
export function bootstrapAurocInterval(
  scores: readonly number[],
  labels: readonly boolean[],
  options: BootstrapOptions,
): BootstrapInterval {
  const point = auroc(scores, labels);
  if (!point.defined) return { defined: false, reason: point.reason };
  const { resamples, level } = checkOptions(options);
  const sorted = sortedGroups(scores);
  const counts = new Int32Array(scores.length);
  const values: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    drawCounts(counts, options.random);
    const value = weightedAuroc(sorted, labels, counts);
    if (value !== undefined) values.push(value);
  }
  return finish(point.value, values, resamples, level);
}

/**
 * Paired percentile bootstrap interval of a difference in AUROC between two scores of the
 * same items, AUROC(scores) − AUROC(baselineScores): each resample draws the items once and
 * computes both AUROCs on that same draw, so the interval reflects the pairing.
 *
 * Source: the confidence-score paper §4.4 ("the paired bootstrap interval of
 * AUROC(s′) − AUROC(s) on the same resamples") and H1 of §6.1.
 *
 * @param scores - the score under test (e.g. agreement-first), one per item.
 * @param baselineScores - the score compared against (e.g. the designed score), same items and order.
 * @param labels - one per item; `true` = positive.
 * @param options - as for {@link bootstrapAurocInterval}.
 * @throws RangeError when the three lengths differ, a score is not finite, or options are bad.
 * @example
 * pairedBootstrapAurocDifference([0.9, 0.8, 0.3, 0.2], [0.5, 0.5, 0.5, 0.5],
 *   [true, true, false, false], { random: createRandom(1) })
 * // { defined: true, estimate: 0.5, low: 0.5, high: 0.5, ... }
 */
export function pairedBootstrapAurocDifference(
  scores: readonly number[],
  baselineScores: readonly number[],
  labels: readonly boolean[],
  options: BootstrapOptions,
): BootstrapInterval {
  if (scores.length !== baselineScores.length) {
    throw new RangeError(
      `pairedBootstrapAurocDifference: ${scores.length} scores but ${baselineScores.length} baseline scores; both must score the same items`,
    );
  }
  const a = auroc(scores, labels);
  const b = auroc(baselineScores, labels);
  if (!a.defined) return { defined: false, reason: a.reason };
  if (!b.defined) return { defined: false, reason: b.reason };
  const { resamples, level } = checkOptions(options);
  const sortedA = sortedGroups(scores);
  const sortedB = sortedGroups(baselineScores);
  const counts = new Int32Array(scores.length);
  const values: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    drawCounts(counts, options.random);
    const va = weightedAuroc(sortedA, labels, counts);
    const vb = weightedAuroc(sortedB, labels, counts);
    if (va !== undefined && vb !== undefined) values.push(va - vb);
  }
  return finish(a.value - b.value, values, resamples, level);
}

interface SortedGroups {
  /** Item indices sorted by ascending score. */
  readonly order: Int32Array;
  /** Start positions (in `order`) of each group of tied scores, plus a final `n`. */
  readonly starts: Int32Array;
}

function checkOptions(options: BootstrapOptions): { resamples: number; level: number } {
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`bootstrap: resamples must be a whole number ≥ 1, got ${resamples}`);
  }
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap: level must be in (0, 1), got ${level}`);
  return { resamples, level };
}

function sortedGroups(scores: readonly number[]): SortedGroups {
  const order = Int32Array.from(scores.keys()).sort((a, b) => (scores[a] as number) - (scores[b] as number));
  const starts: number[] = [];
  for (let p = 0; p < order.length; p += 1) {
    if (p === 0 || scores[order[p] as number] !== scores[order[p - 1] as number]) starts.push(p);
  }
  starts.push(order.length);
  return { order, starts: Int32Array.from(starts) };
}

function drawCounts(counts: Int32Array, random: Random): void {
  const n = counts.length;
  counts.fill(0);
  for (let k = 0; k < n; k += 1) {
    const i = Math.floor(random() * n);
    counts[i] = (counts[i] as number) + 1;
  }
}

/** AUROC of the multiset where item i appears counts[i] times; undefined for one class. */
function weightedAuroc(sorted: SortedGroups, labels: readonly boolean[], counts: Int32Array): number | undefined {
  const { order, starts } = sorted;
  let u = 0;
  let negativesBelow = 0;
  let positives = 0;
  for (let g = 0; g + 1 < starts.length; g += 1) {
    let pos = 0;
    let neg = 0;
    const end = starts[g + 1] as number;
    for (let p = starts[g] as number; p < end; p += 1) {
      const i = order[p] as number;
      const c = counts[i] as number;
      if (c === 0) continue;
      if (labels[i] === true) pos += c;
      else neg += c;
    }
    u += pos * negativesBelow + 0.5 * pos * neg;
    negativesBelow += neg;
    positives += pos;
  }
  if (positives === 0 || negativesBelow === 0) return undefined;
  return u / (positives * negativesBelow);
}

function finish(estimate: number, values: number[], resamples: number, level: number): BootstrapInterval {
  if (values.length === 0) {
    return { defined: false, reason: `every one of the ${resamples} resamples had a single class` };
  }
  values.sort((x, y) => x - y);
  return {
    defined: true,
    estimate,
    low: quantile(values, (1 - level) / 2),
    high: quantile(values, (1 + level) / 2),
    level,
    resamples,
    discarded: resamples - values.length,
    method: 'percentile-bootstrap',
  };
}

/** NumPy's default (linear) quantile of an ascending array. */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  return a + (h - lo) * (b - a);
}

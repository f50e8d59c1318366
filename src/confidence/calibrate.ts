import { logisticPredict, logisticRegression } from '../stats/logistic-regression.js';
import { createRandom, type Random } from '../stats/random.js';
import { averagedWilsonInterval, type WilsonInterval } from '../stats/wilson-interval.js';

/**
 * One labelled answer as calibration sees it: its database (the unit of cross-fitting), its
 * label, the rule's score and the rule's terms (the features of the fitted variant).
 */
export interface CalibrationAnswer {
  readonly questionId: string;
  /** Database of the question; answers of one database are always on the same side of a fit. */
  readonly db: string;
  /** `true` = the answer is right. */
  readonly label: boolean;
  /** The rule's score, in [0, 1]. */
  readonly score: number;
  /** The rule's terms, in {@link CalibrationOptions.termNames} order (agreement A, veto fired, cap fired, …). */
  readonly terms: readonly number[];
}

/** `thresholds`: pass / flag thresholds on the rule's score; `fitted`: on a logistic regression of the label on the rule's terms. */
export type CalibrationVariant = 'thresholds' | 'fitted';

/**
 * Fitted gate thresholds. `passAt: null` means no threshold reaches the target (nothing
 * passes); `flagAt: null` means nothing is flagged (everything below pass is withheld).
 */
export interface FittedThresholds {
  readonly passAt: number | null;
  readonly flagAt: number | null;
}

/** A fit: thresholds on a score, and for the fitted variant the regression that makes the score. */
export interface CalibrationFit extends FittedThresholds {
  readonly variant: CalibrationVariant;
  /** The fitted variant's coefficients: intercept, then one per term. */
  readonly coefficients?: readonly number[];
}

/** Gate decisions by correctness (right / wrong in pass, flag and abstain). */
export interface GateCounts {
  readonly pass: { readonly right: number; readonly wrong: number };
  readonly flag: { readonly right: number; readonly wrong: number };
  readonly abstain: { readonly right: number; readonly wrong: number };
}

/** One cross-fitting split: the two database halves and the held-out decisions of both folds. */
export interface CrossFitSplit {
  readonly databasesA: readonly string[];
  readonly databasesB: readonly string[];
  /** Held-out counts of this split: every answer decided once, by the fit on the other half. */
  readonly heldOut: GateCounts;
  /** The two fits (on A, then on B). */
  readonly fits: readonly [CalibrationFit, CalibrationFit];
}

/** Held-out quantities with their intervals. */
export interface HeldOutSummary {
  /** P(right | pass) with the Wilson interval on the counts averaged over the splits; null when nothing passed in any split. */
  readonly passAccuracy: WilsonInterval | null;
  /** Coverage = P(pass), with the Wilson interval on the averaged counts. */
  readonly coverage: WilsonInterval;
  /** P(pass or flag): answers shown, with or without a warning. */
  readonly shown: WilsonInterval;
  /** P(abstain | right). */
  readonly correctWithheld: number | null;
  /** Wrong answers passed, mean per split. */
  readonly wrongPassed: number;
  /** Smallest and largest over the splits (a split with no pass has no pass accuracy and is left out of its range). */
  readonly range: { readonly passAccuracy: readonly [number, number] | null; readonly coverage: readonly [number, number] };
  /** Splits in which the target pass accuracy was reached on the held-out answers. */
  readonly splitsReachingTarget: number;
  /** Counts averaged over the splits. */
  readonly meanCounts: GateCounts;
  /** How the intervals are computed, in words. */
  readonly method: string;
}

/** Options of {@link calibrateConfidence}. */
export interface CalibrationOptions {
  /** The pass accuracy the thresholds must reach, in (0, 1] (e.g. 0.95). */
  readonly targetPassAccuracy: number;
  /** The accuracy the flagged band must reach (default 0.5: a flagged answer is at least as often right as wrong). */
  readonly targetFlagAccuracy?: number;
  readonly variant?: CalibrationVariant;
  /** Names of the terms, for the fitted variant's report. */
  readonly termNames: readonly string[];
  /** Random database splits (default 20, as in the paper §4.4). */
  readonly splits?: number;
  /** Seed of the splits (default 1). */
  readonly seed?: number;
  /** Ridge penalty of the fitted variant (default 1, scikit-learn's `LogisticRegression(C = 1)`). */
  readonly ridge?: number;
  /** Called with the answers of every fit and the answers it is then applied to (for tests: no database on both sides). */
  readonly onFit?: (train: readonly CalibrationAnswer[], heldOut: readonly CalibrationAnswer[]) => void;
}

/** The result of {@link calibrateConfidence}. */
export interface CalibrationResult {
  readonly variant: CalibrationVariant;
  readonly targetPassAccuracy: number;
  readonly targetFlagAccuracy: number;
  readonly termNames: readonly string[];
  /** The thresholds (and coefficients) fitted on every labelled answer: the ones to deploy. */
  readonly fit: CalibrationFit;
  /** Their decisions on the answers they were fitted on (optimistic; reported for contrast). */
  readonly inSample: GateCounts;
  /** Cross-fitted by database: thresholds fitted on half the databases, judged on the other half. */
  readonly heldOut: HeldOutSummary;
  readonly splits: readonly CrossFitSplit[];
  readonly seed: number;
  readonly ridge: number;
  readonly n: number;
  readonly right: number;
  readonly databases: readonly string[];
}

/** Answers a group of score levels needs before the flag rule judges its accuracy. */
export const MIN_FLAG_GROUP = 10;

/** Default accuracy of the flagged band. */
export const DEFAULT_TARGET_FLAG_ACCURACY = 0.5;
/** Random database splits, as in the paper (§4.4). */
export const DEFAULT_SPLITS = 20;
/** Ridge penalty of the fitted variant: scikit-learn's default `C = 1`. */
export const DEFAULT_RIDGE = 1;

/**
 * The pass and flag thresholds that reach a target accuracy with the most coverage, on one set
 * of scored, labelled answers. The candidates are the scores that occur (every attainable
 * threshold). `passAt` is the lowest candidate t at which the answers with score ≥ t are right
 * at least `targetPass` of the time (the most answers passed at that accuracy: pass accuracy is
 * P(right | pass), so it is counted over everything passed). `flagAt` is the lowest candidate
 * below `passAt` reached by walking down the score levels while each group of levels is right
 * at least `targetFlag` of the time (levels pooled until a group holds {@link MIN_FLAG_GROUP}
 * answers; a flagged answer is shown with a warning, so each flagged group must be more often
 * right than wrong at the default ½, not only the band as a whole, which the levels above
 * would carry). An answer passes at score ≥ passAt, is flagged at score ≥
 * flagAt, and is withheld below.
 *
 * @param scores - one score per answer.
 * @param labels - one label per answer (same order).
 * @param targetPass - in (0, 1].
 * @param targetFlag - in [0, 1].
 * @throws RangeError when the lengths differ.
 * @example fitThresholds([1, 1, 0.8, 0.6, 0.6, 0.2], [true, true, true, true, false, false], 0.95, 0.5) // { passAt: 0.8, flagAt: 0.6 }
 */
export function fitThresholds(scores: readonly number[], labels: readonly boolean[], targetPass: number, targetFlag: number): FittedThresholds {
  if (scores.length !== labels.length) throw new RangeError(`fitThresholds: ${scores.length} scores but ${labels.length} labels`);
  const byLevel = new Map<number, { right: number; total: number }>();
  scores.forEach((s, i) => {
    const c = byLevel.get(s) ?? { right: 0, total: 0 };
    c.total += 1;
    if (labels[i] === true) c.right += 1;
    byLevel.set(s, c);
  });
  const levels = [...byLevel.keys()].sort((a, b) => b - a);
  // Pass: the accuracy of everything passed (cumulative from the top) must reach the target.
  let passAt: number | null = null;
  let right = 0;
  let total = 0;
  for (const t of levels) {
    const c = byLevel.get(t) as { right: number; total: number };
    right += c.right;
    total += c.total;
    if (right / total >= targetPass) passAt = t;
  }
  // Flag: walking down from pass, each group of score levels (levels pooled until the group
  // holds MIN_FLAG_GROUP answers, so that one rare level does not decide) must be right at
  // least targetFlag of the time; the walk stops at the first group that is not.
  let flagAt: number | null = null;
  let group = { right: 0, total: 0 };
  for (const t of levels) {
    if (passAt !== null && t >= passAt) continue;
    const c = byLevel.get(t) as { right: number; total: number };
    group = { right: group.right + c.right, total: group.total + c.total };
    if (group.total < MIN_FLAG_GROUP && t !== levels[levels.length - 1]) continue;
    if (group.right / group.total < targetFlag) break;
    flagAt = t;
    group = { right: 0, total: 0 };
  }
  return { passAt, flagAt };
}

/**
 * The gate decisions of fitted thresholds on scored, labelled answers.
 *
 * @example gateCounts([0.9, 0.5], [true, false], { passAt: 0.8, flagAt: null }) // pass 1 / 0, abstain 0 / 1
 */
export function gateCounts(scores: readonly number[], labels: readonly boolean[], thresholds: FittedThresholds): GateCounts {
  const t = { pass: { right: 0, wrong: 0 }, flag: { right: 0, wrong: 0 }, abstain: { right: 0, wrong: 0 } };
  scores.forEach((s, i) => {
    const g = thresholdGate(s, thresholds);
    if (labels[i] === true) t[g].right += 1;
    else t[g].wrong += 1;
  });
  return t;
}

/**
 * The gate state of a score under fitted thresholds (null = no such threshold).
 *
 * @example thresholdGate(0.7, { passAt: 0.8, flagAt: 0.6 }) // 'flag'
 */
export function thresholdGate(score: number, thresholds: FittedThresholds): 'pass' | 'flag' | 'abstain' {
  if (thresholds.passAt !== null && score >= thresholds.passAt) return 'pass';
  if (thresholds.flagAt !== null && score >= thresholds.flagAt) return 'flag';
  return 'abstain';
}

/**
 * The score of an answer under a fit: the rule's score for the `thresholds` variant, the
 * fitted probability σ(β·(1, terms)) for the `fitted` variant.
 */
export function fittedScore(fit: Pick<CalibrationFit, 'variant' | 'coefficients'>, answer: Pick<CalibrationAnswer, 'score' | 'terms'>): number {
  if (fit.variant === 'thresholds' || fit.coefficients === undefined) return answer.score;
  return logisticPredict(fit.coefficients, answer.terms);
}

/** Fits thresholds (and, for the fitted variant, the regression) on one set of answers. */
function fitOn(answers: readonly CalibrationAnswer[], variant: CalibrationVariant, targetPass: number, targetFlag: number, ridge: number): CalibrationFit {
  const labels = answers.map((a) => a.label);
  if (variant === 'thresholds') return { variant, ...fitThresholds(answers.map((a) => a.score), labels, targetPass, targetFlag) };
  const regression = logisticRegression(answers.map((a) => a.terms), labels, { ridge });
  const fit = { variant, coefficients: regression.coefficients };
  return { ...fit, ...fitThresholds(answers.map((a) => fittedScore(fit, a)), labels, targetPass, targetFlag) };
}

function decide(fit: CalibrationFit, answers: readonly CalibrationAnswer[]): GateCounts {
  return gateCounts(answers.map((a) => fittedScore(fit, a)), answers.map((a) => a.label), fit);
}

/**
 * Calibrates a confidence rule on a deployment's own labelled answers: fits the pass and flag
 * thresholds that reach `targetPassAccuracy` with the most coverage (on the rule's score, or on
 * a logistic regression of the label on the rule's terms: the paper's fitted variant), and
 * estimates how they do on answers they were not fitted on by cross-fitting by database: in
 * each of `splits` seeded random splits the databases are cut into two halves, thresholds are
 * fitted on each half and applied to the other, so every answer is decided once per split by
 * a fit that never saw its database (paper §4.4: "whole-database cross-fitting over 20 random
 * splits, so no database is on both sides of a fit").
 *
 * Intervals: the held-out counts are averaged over the splits (each split decides every
 * answer once, so the averages carry n answers, not n × splits) and the Wilson score interval
 * is taken on the averaged counts ({@link averagedWilsonInterval}); the range over the splits
 * is reported beside it. The deployed thresholds are fitted on all answers.
 *
 * @param answers - labelled answers of at least two databases.
 * @param options - target accuracies, variant, term names, splits, seed, ridge.
 * @throws RangeError when there are no answers, fewer than two databases, the target is not in
 *   (0, 1], or the terms have different lengths (caller errors; the CLI checks first).
 * @example calibrateConfidence(answers, { targetPassAccuracy: 0.95, termNames: ['agreement'] }).heldOut.passAccuracy?.estimate
 */
export function calibrateConfidence(answers: readonly CalibrationAnswer[], options: CalibrationOptions): CalibrationResult {
  const targetPass = options.targetPassAccuracy;
  const targetFlag = options.targetFlagAccuracy ?? DEFAULT_TARGET_FLAG_ACCURACY;
  if (!(targetPass > 0 && targetPass <= 1)) throw new RangeError(`the target pass accuracy must be in (0, 1], got ${targetPass}`);
  if (!(targetFlag >= 0 && targetFlag <= 1)) throw new RangeError(`the target flag accuracy must be in [0, 1], got ${targetFlag}`);
  if (answers.length === 0) throw new RangeError('calibrateConfidence: no labelled answers');
  const variant = options.variant ?? 'thresholds';
  const splitsN = options.splits ?? DEFAULT_SPLITS;
  const seed = options.seed ?? 1;
  const ridge = options.ridge ?? DEFAULT_RIDGE;
  const databases = [...new Set(answers.map((a) => a.db))].sort();
  if (databases.length < 2) {
    throw new RangeError(`cross-fitting by database needs answers from at least two databases; these come from ${databases.length} (${databases.join(', ')})`);
  }
  const fit = fitOn(answers, variant, targetPass, targetFlag, ridge);
  const random = createRandom(seed);
  const splits: CrossFitSplit[] = [];
  for (let s = 0; s < splitsN; s += 1) {
    const order = shuffle(databases, random);
    const half = Math.ceil(order.length / 2);
    const a = new Set(order.slice(0, half));
    const sideA = answers.filter((x) => a.has(x.db));
    const sideB = answers.filter((x) => !a.has(x.db));
    options.onFit?.(sideA, sideB);
    const fitA = fitOn(sideA, variant, targetPass, targetFlag, ridge);
    options.onFit?.(sideB, sideA);
    const fitB = fitOn(sideB, variant, targetPass, targetFlag, ridge);
    splits.push({
      databasesA: [...a].sort(),
      databasesB: order.slice(half).sort(),
      heldOut: addCounts(decide(fitA, sideB), decide(fitB, sideA)),
      fits: [fitA, fitB],
    });
  }
  const right = answers.filter((x) => x.label).length;
  return {
    variant,
    targetPassAccuracy: targetPass,
    targetFlagAccuracy: targetFlag,
    termNames: options.termNames,
    fit,
    inSample: decide(fit, answers),
    heldOut: summarise(splits, answers.length, targetPass),
    splits,
    seed,
    ridge,
    n: answers.length,
    right,
    databases,
  };
}

function summarise(splits: readonly CrossFitSplit[], n: number, target: number): HeldOutSummary {
  const mean = (f: (c: GateCounts) => number): number => splits.reduce((s, x) => s + f(x.heldOut), 0) / splits.length;
  const meanCounts: GateCounts = {
    pass: { right: mean((c) => c.pass.right), wrong: mean((c) => c.pass.wrong) },
    flag: { right: mean((c) => c.flag.right), wrong: mean((c) => c.flag.wrong) },
    abstain: { right: mean((c) => c.abstain.right), wrong: mean((c) => c.abstain.wrong) },
  };
  const passed = meanCounts.pass.right + meanCounts.pass.wrong;
  const shown = passed + meanCounts.flag.right + meanCounts.flag.wrong;
  const rightTotal = meanCounts.pass.right + meanCounts.flag.right + meanCounts.abstain.right;
  const accuracies = splits.flatMap((x) => {
    const p = x.heldOut.pass.right + x.heldOut.pass.wrong;
    return p === 0 ? [] : [x.heldOut.pass.right / p];
  });
  const coverages = splits.map((x) => (x.heldOut.pass.right + x.heldOut.pass.wrong) / n);
  return {
    passAccuracy: passed === 0 ? null : averagedWilsonInterval(meanCounts.pass.right, passed),
    coverage: averagedWilsonInterval(passed, n),
    shown: averagedWilsonInterval(shown, n),
    correctWithheld: rightTotal === 0 ? null : meanCounts.abstain.right / rightTotal,
    wrongPassed: meanCounts.pass.wrong,
    range: {
      passAccuracy: accuracies.length === 0 ? null : [Math.min(...accuracies), Math.max(...accuracies)],
      coverage: [Math.min(...coverages), Math.max(...coverages)],
    },
    splitsReachingTarget: accuracies.filter((a) => a >= target).length,
    meanCounts,
    method: `Wilson score interval (95%) on the held-out counts averaged over the ${splits.length} splits (each split decides every answer once, by thresholds fitted without its database)`,
  };
}

function addCounts(a: GateCounts, b: GateCounts): GateCounts {
  return {
    pass: { right: a.pass.right + b.pass.right, wrong: a.pass.wrong + b.pass.wrong },
    flag: { right: a.flag.right + b.flag.right, wrong: a.flag.wrong + b.flag.wrong },
    abstain: { right: a.abstain.right + b.abstain.right, wrong: a.abstain.wrong + b.abstain.wrong },
  };
}

function distinctDescending(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => b - a);
}

/** Fisher–Yates with the injected generator. */
function shuffle<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

import { auroc } from '../stats/auroc.js';
import { bootstrapAurocInterval, pairedBootstrapAurocDifference, type BootstrapInterval } from '../stats/bootstrap.js';
import { brierScore } from '../stats/brier.js';
import { expectedCalibrationError } from '../stats/ece.js';
import { createRandom } from '../stats/random.js';
import { accuracyCoverage, type CoveragePoint } from './accuracy-coverage.js';
import { gateMetrics, gateTable, type GateMetrics, type GateTable } from './gate-table.js';
import type { RuleName, RuleScore } from './types.js';

/** One labelled answer with its rule scores. */
export interface LabelledAnswer {
  readonly questionId: string;
  /** `true` = the shown answer is right (execution match, or the labels file). */
  readonly label: boolean;
  /** The rules defined for this answer. */
  readonly scores: readonly RuleScore[];
}

/** Evaluation of one rule over the answers it is defined for. */
export interface RuleEvaluation {
  readonly rule: RuleName;
  readonly n: number;
  readonly right: number;
  /** AUROC (ties one half) with its percentile bootstrap interval, or why undefined. */
  readonly auroc: BootstrapInterval;
  /** ECE over 10 equal-width bins; undefined for no answers. */
  readonly ece: number | undefined;
  readonly brier: number | undefined;
  readonly gate: GateTable;
  readonly metrics: GateMetrics;
  readonly curve: readonly CoveragePoint[];
}

/** Paired bootstrap difference AUROC(rule) − AUROC(baseline) on the answers both are defined for. */
export interface AurocDifference {
  readonly rule: RuleName;
  readonly baseline: RuleName;
  readonly n: number;
  readonly difference: BootstrapInterval;
}

export interface Evaluation {
  readonly n: number;
  readonly right: number;
  /** right / n; undefined for no answers. */
  readonly accuracy: number | undefined;
  readonly rules: readonly RuleEvaluation[];
  readonly differences: readonly AurocDifference[];
  readonly resamples: number;
  readonly seed: number;
}

export interface EvaluationOptions {
  /** Rules to evaluate, in report order (default: every rule present). */
  readonly rules?: readonly RuleName[];
  /** Pairs (rule, baseline) for paired AUROC differences (default {@link DEFAULT_DIFFERENCES}). */
  readonly differences?: readonly (readonly [RuleName, RuleName])[];
  /** Bootstrap resamples (default 2,000). */
  readonly resamples?: number;
  /** Seed of the bootstrap generator (default 1). Every interval uses a fresh generator with this seed, so all rules see the same resamples. */
  readonly seed?: number;
}

/**
 * The paired differences reported by default: the pre-registered H1 (agreement-first −
 * designed), the §8 statistic comparison (agreement − entropy), the v3 signal (v3 −
 * agreement-first) and what the checks add (agreement-first − agreement).
 */
export const DEFAULT_DIFFERENCES: readonly (readonly [RuleName, RuleName])[] = [
  ['agreement-first', 'designed'],
  ['agreement', 'entropy'],
  ['v3', 'agreement-first'],
  ['agreement-first', 'agreement'],
];

/**
 * Fewest answers of each class (right and wrong) for an AUROC and its bootstrap interval: with
 * fewer, most resamples hold one or two answers of a class and the interval says 1.000 (1.000–1.000)
 * of two answers; the AUROC is undefined, with this reason.
 */
export const MIN_AUROC_PER_CLASS = 5;

/** The reason an AUROC is not computed for these labels (one class, or fewer than {@link MIN_AUROC_PER_CLASS} of a class), or undefined. */
function tooFewForAuroc(labels: readonly boolean[]): { defined: false; reason: string } | undefined {
  const right = labels.filter((y) => y).length;
  const wrong = labels.length - right;
  if (right === 0 || wrong === 0) return { defined: false, reason: `one class only (${right} right, ${wrong} wrong): AUROC compares right answers with wrong ones` };
  if (right < MIN_AUROC_PER_CLASS || wrong < MIN_AUROC_PER_CLASS) {
    return { defined: false, reason: `too few labels (${right} right, ${wrong} wrong; at least ${MIN_AUROC_PER_CLASS} of each needed for an AUROC and its interval)` };
  }
  return undefined;
}

/**
 * Evaluates confidence rules against correctness labels (paper §4.4): per rule the AUROC with a
 * 95% percentile bootstrap interval (2,000 resamples, seeded), ECE (10 bins), Brier score, the
 * gate table by correctness and its quantities (pass accuracy, pass share, correct withheld,
 * wrong withheld), and the accuracy–coverage curve; and paired bootstrap intervals of AUROC
 * differences between rules on the same resamples. Pure: no I/O; reproducible from `seed`.
 *
 * Source: the confidence-score paper §4.4, Tables 4, 8 and 9, Figure 4.
 *
 * @param answers - labelled answers with their rule scores.
 * @param options - rules, differences, resamples and seed.
 * @example evaluateRules(answers).rules.find((r) => r.rule === 'agreement-first')?.metrics.passAccuracy // e.g. 0.957
 */
export function evaluateRules(answers: readonly LabelledAnswer[], options: EvaluationOptions = {}): Evaluation {
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 1;
  const present = new Set(answers.flatMap((a) => a.scores.map((s) => s.rule)));
  const rules = (options.rules ?? [...present]).filter((r) => present.has(r));
  const right = answers.filter((a) => a.label).length;
  const evaluations = rules.map((rule): RuleEvaluation => {
    const rows = answers.flatMap((a) => {
      const s = a.scores.find((x) => x.rule === rule);
      return s === undefined ? [] : [{ score: s.score, gate: s.gate, label: a.label }];
    });
    const scores = rows.map((r) => r.score);
    const labels = rows.map((r) => r.label);
    const table = gateTable(rows.map((r) => r.gate), labels);
    return {
      rule,
      n: rows.length,
      right: labels.filter((y) => y).length,
      auroc: tooFewForAuroc(labels) ?? bootstrapAurocInterval(scores, labels, { random: createRandom(seed), resamples }),
      ece: rows.length === 0 ? undefined : expectedCalibrationError(scores, labels).ece,
      brier: brierScore(scores, labels),
      gate: table,
      metrics: gateMetrics(table),
      curve: accuracyCoverage(scores, labels),
    };
  });
  const differences = (options.differences ?? DEFAULT_DIFFERENCES)
    .filter(([a, b]) => present.has(a) && present.has(b))
    .map(([rule, baseline]): AurocDifference => {
      const rows = answers.flatMap((x) => {
        const a = x.scores.find((s) => s.rule === rule);
        const b = x.scores.find((s) => s.rule === baseline);
        return a === undefined || b === undefined ? [] : [{ a: a.score, b: b.score, label: x.label }];
      });
      return {
        rule,
        baseline,
        n: rows.length,
        difference: tooFewForAuroc(rows.map((r) => r.label)) ?? pairedBootstrapAurocDifference(
          rows.map((r) => r.a),
          rows.map((r) => r.b),
          rows.map((r) => r.label),
          { random: createRandom(seed), resamples },
        ),
      };
    });
  return {
    n: answers.length,
    right,
    accuracy: answers.length === 0 ? undefined : right / answers.length,
    rules: evaluations,
    differences,
    resamples,
    seed,
  };
}

/**
 * AUROC of one rule without an interval (cheap), e.g. for the truncation bound.
 *
 * @example pointAuroc(answers, 'agreement') // 0.74…
 */
export function pointAuroc(answers: readonly LabelledAnswer[], rule: RuleName): number | undefined {
  const rows = answers.flatMap((a) => {
    const s = a.scores.find((x) => x.rule === rule);
    return s === undefined ? [] : [{ score: s.score, label: a.label }];
  });
  const r = auroc(rows.map((x) => x.score), rows.map((x) => x.label));
  return r.defined ? r.value : undefined;
}

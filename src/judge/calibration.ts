import { cohensKappa, type ChanceCorrectedAgreement } from '../stats/cohens-kappa.js';
import { confusionTable, type ConfusionTable } from '../stats/confusion-table.js';
import { kappaRange, type KappaRange } from '../stats/kappa-range.js';
import { scottsPi } from '../stats/scotts-pi.js';
import type { CalibrationCase, GradeLabel } from './types.js';

/** The labels of a calibration table, in this order (rows = reference, columns = judge). */
export const GRADE_LABELS: readonly GradeLabel[] = ['correct', 'incorrect'];

/**
 * What a calibration report always says in words (the chapter's working rule): at a kappa
 * near 0.5, a judge is good enough to choose what a person reads, not to decide a release.
 */
export const JUDGE_ADVICE =
  'A judge near κ 0.5 chooses what a person reads and never passes a release alone: use its verdicts to pick which answers and reasons a person reviews, never as a gate rule on their own.';

/** The reference labels of a calibration unless told otherwise. */
export const DEFAULT_REFERENCE =
  'execution match of each answer against its golden answer (recomputable by anyone); the judge grades without seeing the golden result';

/** Agreement of the judge with the reference labels on a set of cases. */
export interface AgreementSummary {
  /** All cases in the set, unparsed included. */
  readonly cases: number;
  readonly referenceCorrect: number;
  readonly referenceIncorrect: number;
  readonly judgeCorrect: number;
  readonly judgeIncorrect: number;
  /** Cases whose judge reply could not be read as a verdict; left out of the statistics below. */
  readonly unparsed: number;
  /** Cases with a parsed verdict: the n of the statistics. */
  readonly judged: number;
  /** Wrong answers (reference incorrect) the judge called correct: the lenient error. */
  readonly wrongCalledCorrect: number;
  /** Right answers (reference correct) the judge called incorrect: the strict error. */
  readonly rightCalledIncorrect: number;
  /** p_o over the judged cases; null when none. */
  readonly observed: number | null;
  /**
   * p_o over all cases with every unparsed reply counted as a disagreement: the bound a
   * reader should use when unparsed replies are many. null when there are no cases.
   */
  readonly observedUnparsedAsDisagreement: number | null;
  readonly kappa: ChanceCorrectedAgreement;
  readonly pi: ChanceCorrectedAgreement;
  /** Range of kappa when any one judged verdict is changed. */
  readonly kappaRange: KappaRange;
  /** Rows = reference, columns = judge, labels {@link GRADE_LABELS}; judged cases only. */
  readonly table: ConfusionTable;
}

/** The calibration report (see {@link calibrate}). */
export interface CalibrationReport {
  /** A name for the judge (model and prompt), for the report's title. */
  readonly judge: string;
  /** What the reference labels are, in words (default {@link DEFAULT_REFERENCE}). */
  readonly reference: string;
  readonly overall: AgreementSummary;
  /** Split by agent (or system), agents in first-seen order. */
  readonly byAgent: readonly ({ readonly agent: string } & AgreementSummary)[];
  /** Case ids of wrong answers the judge called correct, in input order. */
  readonly wrongCalledCorrect: readonly string[];
  /** Case ids of right answers the judge called incorrect, in input order. */
  readonly rightCalledIncorrect: readonly string[];
  /** Cases whose judge reply was unparsed, with the problem. */
  readonly unparsedCases: readonly { readonly caseId: string; readonly problem: string }[];
  /** {@link JUDGE_ADVICE}. */
  readonly advice: string;
  /** The reference labels' matching policy, in words (e.g. `relaxed execution match …`). */
  readonly labelPolicy: string;
  /** The agreement policy: a calibration compares no samples, and says so ({@link JUDGE_AGREEMENT_POLICY}). */
  readonly agreementPolicy: string;
}

/** A judge calibration's agreement policy: it compares verdicts with labels, never samples with each other. */
export const JUDGE_AGREEMENT_POLICY = 'none (a judge calibration compares each verdict with its label; no samples are compared with each other)';

/** The label policy of a calibration when none is stated: the project's own match mode is not known. */
export const UNSTATED_LABEL_POLICY = 'execution match as scored (match mode not stated)';

/**
 * Agreement of a judge's verdicts with reference labels on a set of cases: counts, observed
 * agreement, Cohen's kappa, Scott's pi, the range of kappa when any one verdict is changed,
 * and the errors in each direction. Unparsed verdicts are counted and left out of the
 * statistics (with `observedUnparsedAsDisagreement` as the pessimistic bound).
 *
 * Source: the regression-gate chapter, "Calibrate the judge against reference labels"
 * (`agreement`, `kappa_one_verdict`).
 *
 * @example agreementSummary(chapterCases) // { cases: 56, referenceCorrect: 26, observed: 0.75, kappa: { value: 0.4895… }, … }
 */
export function agreementSummary(cases: readonly CalibrationCase[]): AgreementSummary {
  const judgedCases = cases.filter((c) => c.verdict.label !== 'unparsed');
  const table = confusionTable(
    judgedCases.map((c) => c.reference),
    judgedCases.map((c) => c.verdict.label),
    GRADE_LABELS,
  );
  const count = (test: (c: CalibrationCase) => boolean): number => cases.reduce((n, c) => n + (test(c) ? 1 : 0), 0);
  const agreed = count((c) => c.verdict.label === c.reference);
  const kappa = cohensKappa(table);
  return {
    cases: cases.length,
    referenceCorrect: count((c) => c.reference === 'correct'),
    referenceIncorrect: count((c) => c.reference === 'incorrect'),
    judgeCorrect: count((c) => c.verdict.label === 'correct'),
    judgeIncorrect: count((c) => c.verdict.label === 'incorrect'),
    unparsed: cases.length - judgedCases.length,
    judged: judgedCases.length,
    wrongCalledCorrect: count((c) => c.reference === 'incorrect' && c.verdict.label === 'correct'),
    rightCalledIncorrect: count((c) => c.reference === 'correct' && c.verdict.label === 'incorrect'),
    observed: kappa.observed,
    observedUnparsedAsDisagreement: cases.length === 0 ? null : agreed / cases.length,
    kappa,
    pi: scottsPi(table),
    kappaRange: kappaRange(table),
    table,
  };
}

/**
 * Calibrates a judge: its verdicts on answers whose reference label anyone can recompute
 * (execution match against the golden answer), overall and split by agent, with the lists of
 * errors in each direction and {@link JUDGE_ADVICE}.
 *
 * @param cases - one per distinct answer (case ids should be unique; they are listed as given).
 * @param judge - a name for the judge (model, prompt), shown in the report.
 * @param reference - what the reference labels are, in words (default {@link DEFAULT_REFERENCE}).
 * @param labelPolicy - the reference labels' matching policy, in words (default {@link UNSTATED_LABEL_POLICY}).
 * @example calibrate(chapterCases, 'gpt-4o, prompts/judge-answer.md').overall.pi.value // 0.4835… (the chapter's 0.48)
 */
export function calibrate(cases: readonly CalibrationCase[], judge: string, reference: string = DEFAULT_REFERENCE, labelPolicy: string = UNSTATED_LABEL_POLICY): CalibrationReport {
  const agents = [...new Set(cases.map((c) => c.agent))];
  return {
    judge,
    reference,
    overall: agreementSummary(cases),
    byAgent: agents.map((agent) => ({ agent, ...agreementSummary(cases.filter((c) => c.agent === agent)) })),
    wrongCalledCorrect: cases.filter((c) => c.reference === 'incorrect' && c.verdict.label === 'correct').map((c) => c.caseId),
    rightCalledIncorrect: cases.filter((c) => c.reference === 'correct' && c.verdict.label === 'incorrect').map((c) => c.caseId),
    unparsedCases: cases.flatMap((c) => (c.verdict.label === 'unparsed' ? [{ caseId: c.caseId, problem: c.verdict.problem }] : [])),
    advice: JUDGE_ADVICE,
    labelPolicy,
    agreementPolicy: JUDGE_AGREEMENT_POLICY,
  };
}

import type { CheckName, RuleName } from './types.js';

/** The eight planted error kinds of the paper's Appendix B. */
export type PlantKind =
  | 'fake_table'
  | 'bad_join'
  | 'stand_in'
  | 'wrong_number'
  | 'wrong_time_window'
  | 'wrong_aggregate'
  | 'intent_flip'
  | 'partial_answer';

export const PLANT_KINDS: readonly PlantKind[] = [
  'fake_table',
  'bad_join',
  'stand_in',
  'wrong_number',
  'wrong_time_window',
  'wrong_aggregate',
  'intent_flip',
  'partial_answer',
];

/**
 * The check built for each kind (paper Table 3, "own check"). The last four were judge checks
 * in the paper (COMPLETE, intent); with no judge recordings they are unmeasured here.
 */
export const OWN_CHECK: Readonly<Record<PlantKind, CheckName | 'judge'>> = {
  fake_table: 'missing_table',
  bad_join: 'bad_join',
  stand_in: 'stand_in',
  wrong_number: 'uncited_number',
  wrong_time_window: 'judge',
  wrong_aggregate: 'judge',
  intent_flip: 'judge',
  partial_answer: 'judge',
};

/** Per-rule outcome counts over the effective plants of one kind. */
export interface PlantRuleCounts {
  readonly withheld: number;
  readonly notPassed: number;
}

/** Results for one planted error kind. */
export interface PlantKindResult {
  readonly kind: PlantKind;
  /** Answers labelled correct that were tried. */
  readonly tried: number;
  /** Answers where the kind could not be planted, by reason (e.g. "no join"). */
  readonly skipped: Readonly<Record<string, number>>;
  /** Plants made. */
  readonly planted: number;
  /** Plants that changed the answer (result differs, query fails, or written text / stand-in changed). */
  readonly effective: number;
  /** Over effective plants: per rule, how many were withheld (abstain) and not passed (flag or abstain). */
  readonly rules: Readonly<Partial<Record<RuleName, PlantRuleCounts>>>;
  /** The kind's own check. */
  readonly ownCheck: CheckName | 'judge';
  /** Effective plants where the own check fired; null when it is a judge check (unmeasured). */
  readonly ownCheckFired: number | null;
  /** A few examples: question id, what was changed. */
  readonly examples: readonly { readonly questionId: string; readonly change: string }[];
}

/** Planted-error results (paper §5.3, Table 3). */
export interface PlantReport {
  readonly perKind: number;
  readonly seed: number;
  /** Answers labelled correct available for planting. */
  readonly correctAnswers: number;
  /** Controls: unchanged SQL written back from the parser's tree, re-executed, reproduced the result. */
  readonly controls: { readonly tried: number; readonly reproduced: number };
  readonly kinds: readonly PlantKindResult[];
}

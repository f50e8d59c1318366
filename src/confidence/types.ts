import type { QueryResultSummary } from '../agent/types.js';

/**
 * One sample: one run of the agent on a question (one seed of a recording, or one system's
 * prediction in a cross-system comparison).
 * - `result`: the final query result, or `undefined` (⊥) when the run ran no successful query.
 *   `rows` may be a prefix of the rows (`rows.length < rowCount`, e.g. 100 kept in reports);
 *   such a result is treated like a truncated one.
 * - `sql`: the final SQL; `queries`: every SQL statement of the trace in order (default `[sql]`).
 * - `text`: the written answer, when the agent writes one.
 */
export interface Sample {
  /** Seed number or system name, for messages. */
  readonly label: string;
  readonly sql?: string;
  readonly queries?: readonly string[];
  /** Metrics queried through the semantic layer, in order. */
  readonly metrics?: readonly string[];
  readonly result?: QueryResultSummary;
  readonly text?: string;
  /** Why there is no result (SQL error, decline, missing recording), for messages. */
  readonly error?: string;
}

/** The K samples of one question; `samples[0]` is the shown answer (paper §3.1: sample 0). */
export interface QuestionSamples {
  readonly questionId: string;
  readonly question: string;
  readonly hint?: string;
  /** Database name for multi-database warehouses. */
  readonly db?: string;
  /** The golden question's tags (approved definitions select questions by them). */
  readonly tags?: readonly string[];
  readonly samples: readonly Sample[];
}

/** Whether two results agree (the relaxed projection match with 4-place rounding, unordered). */
export type ResultMatcher = (a: QueryResultSummary, b: QueryResultSummary) => boolean;

/** Status of one check on one answer. `unmeasured` always carries the reason in `detail`. */
export type CheckStatus = 'passed' | 'fired' | 'unmeasured';

/** The deterministic checks of the paper §3.2 / SPEC §8. */
export type CheckName = 'missing_table' | 'bad_join' | 'stand_in' | 'uncited_number' | 'empty_result';

export const CHECK_NAMES: readonly CheckName[] = ['missing_table', 'bad_join', 'stand_in', 'uncited_number', 'empty_result'];

/** Outcome of one check with a human-readable explanation. */
export interface CheckResult {
  readonly check: CheckName;
  readonly status: CheckStatus;
  readonly detail: string;
}

/**
 * The deterministic checks of one shown answer, with the shares the designed score's GROUNDED
 * and SCHEMA terms are built from (`undefined` = not defined for this answer).
 */
export interface AnswerChecks {
  readonly missingTable: CheckResult;
  readonly badJoin: CheckResult;
  readonly standIn: CheckResult;
  readonly uncitedNumber: CheckResult;
  readonly emptyResult: CheckResult;
  /** g_tab: share of parsed queries whose tables all exist. */
  readonly gTab: number | undefined;
  /** g_join: share of equi-join pairs with key overlap ρ ≥ 0.85. */
  readonly gJoin: number | undefined;
  /** g_val: share of returned columns carrying a stand-in code that return none. */
  readonly gVal: number | undefined;
  /** Numbers in the written answer that are cited by a returned cell (SCHEMA = 1 when ≥ 1). */
  readonly citedNumbers: number;
}

/** The confidence rules (paper §3.2, §3.4), plus agreement alone and the entropy term alone. */
export type RuleName = 'agreement' | 'entropy' | 'agreement-first' | 'v3' | 'v2' | 'designed';

export const RULE_NAMES: readonly RuleName[] = ['agreement', 'entropy', 'agreement-first', 'v3', 'v2', 'designed'];

/** Gate state of an answer: show it, show it with a warning, or withhold it. */
export type GateState = 'pass' | 'flag' | 'abstain';

/** One reason a score was lowered or an answer not passed. */
export interface Reason {
  /** A check name, a cap (`thin_evidence`, `no_result`, `empty_result`) or `low_agreement` / `low_score`. */
  readonly code: string;
  readonly detail: string;
}

/** A rule's score of one answer and the gate decision, with the reasons for flag / abstain. */
export interface RuleScore {
  readonly rule: RuleName;
  /** In [0, 1]. */
  readonly score: number;
  readonly gate: GateState;
  /** Empty on pass; on flag and abstain, every check or cap that lowered the score, or the low agreement / score itself. */
  readonly reasons: readonly Reason[];
}

/**
 * Shapes of the comparison of two configurations (base, candidate) and of the gate's verdict
 * (SPEC §7). All fractions are in [0, 1]; differences in [−1, 1]; no field is ever NaN.
 */
import type { Outcome } from '../scoring/types.js';
import type { SignTestResult } from '../stats/sign-test.js';
import type { SmallestDetectable } from '../stats/smallest-detectable.js';
import type { StudentTInterval } from '../stats/student-t-interval.js';

/** The gate's rules, parsed from the `gate:` section of `replaygate.yml` (see `parseGateRules`). */
export interface GateRules {
  /** Two-sided level of the t interval of the mean paired difference (default 0.95). */
  readonly confidence: number;
  /** A stable break: base share correct ≥ `baseMin` and candidate share ≤ `candidateMax`. */
  readonly stableBreak: { readonly baseMin: number; readonly candidateMax: number };
  readonly failOnStableBreak: boolean;
  /** Fail when the whole t interval of the mean paired difference lies below zero. */
  readonly failOnIntervalBelowZero: boolean;
  /** Fail on any `missing_recording` run in either side. */
  readonly failOnMissingRecording: boolean;
  /** Fail when some question is covered by one side only (default false: listed, not failed). */
  readonly failOnUnpairedQuestion: boolean;
  /**
   * Fail when the agent of one side could not run: two or more of its runs (or all, when it has
   * fewer) failed the same way — the program crashed, timed out or printed no answer with one
   * cause (`RunRecord.failure`) — unless the other side failed alike on the same runs (default true).
   */
  readonly failOnAgentFailure: boolean;
  /**
   * Do not fail on a stable break of a question whose golden result is ambiguous (its golden
   * `ORDER BY … LIMIT` cuts through ties; default false: such breaks fail, marked as ambiguous).
   * Applies only when the golden ambiguity was checked (replayed sides, not runs files).
   */
  readonly ignoreAmbiguousGolden: boolean;
}

/**
 * A compared golden question whose golden result is ambiguous: its golden SQL's top-level
 * `ORDER BY … LIMIT k` cuts through tied rows, so another correct query may return other rows
 * (SPEC §5; `limitTiesAmbiguity` in src/matching).
 */
export interface AmbiguousGolden {
  readonly id: string;
  /** Why, e.g. "rows 1 and 2 tie on ORDER BY count(*); LIMIT 1 cuts through the tie". */
  readonly reason: string;
}

/**
 * What the gate knows about ambiguous golden results: checked (with the ambiguous questions,
 * possibly none), or not checked and why (e.g. runs files carry no golden SQL to re-run).
 */
export type GoldenAmbiguity =
  | {
      readonly checked: true;
      readonly ambiguous: readonly AmbiguousGolden[];
      /**
       * True when the runs were graded by the engine's tie-break (`spider` mode, faithful to the
       * official evaluator): a move on an ambiguous question may then be a tie-break, so it is
       * never reported as a stable break. False or absent (`exact`, `relaxed`): every admissible
       * tie-break was accepted, so a move there is a real change.
       */
      readonly gradedByTieBreak?: boolean;
    }
  | { readonly checked: false; readonly why: string };

/** One run's outcome under one seed. */
export interface SeedOutcome {
  readonly seed: number;
  readonly outcome: Outcome;
}

/** One side's runs of one question. */
export interface SideQuestion {
  /** Runs recorded for the question (one per seed). */
  readonly runs: number;
  readonly correct: number;
  /** correct / runs. */
  readonly share: number;
  /** Per-seed outcomes, in seed order (the `seeds` option, else order of first appearance). */
  readonly outcomes: readonly SeedOutcome[];
}

/** One question covered by both sides. */
export interface QuestionComparison {
  readonly questionId: string;
  readonly base: SideQuestion;
  readonly candidate: SideQuestion;
  /** d = candidate share − base share, in [−1, 1]. */
  readonly difference: number;
  /** `fixed` when d > 0, `broken` when d < 0. */
  readonly movement: 'fixed' | 'broken' | 'unchanged';
  readonly stableBreak: boolean;
}

/** A run whose outcome is `missing_recording`. */
export interface MissingRun {
  readonly questionId: string;
  readonly seed: number;
  readonly detail?: string;
}

/**
 * A question covered by both sides but left out of the paired statistics (mean, interval,
 * sign test, fixed/broken, stable breaks, charts) because a run of it has no recording on
 * either side: a missing recording is not an answer. The missing-recording rule fails the
 * gate for it.
 */
export interface ExcludedQuestion {
  readonly questionId: string;
  /** Seeds with no recording, per side (empty when that side's runs all replayed). */
  readonly baseSeeds: readonly number[];
  readonly candidateSeeds: readonly number[];
}

/**
 * Runs of one side whose agent program failed with one cause (`RunRecord.failure`): a dependency
 * missing, a wrong interpreter, a crash at start-up — not an answer that is wrong.
 */
export interface AgentFailure {
  /** The cause, e.g. `exited with code 1: ModuleNotFoundError: No module named 'requests'`. */
  readonly cause: string;
  /** The runs that failed with it, in the side's order. */
  readonly runs: readonly { readonly questionId: string; readonly seed: number }[];
  /** The first such run's whole detail (exit status, the end of standard error). */
  readonly detail?: string;
  /** True when every one of these runs failed with the same cause in the other side too. */
  readonly inBothSides: boolean;
}

/** Seeds a question lacks relative to the side's expected seeds. */
export interface MissingSeeds {
  readonly questionId: string;
  readonly seeds: readonly number[];
}

/** What one side (base or candidate) brought to the comparison. */
export interface SideSummary {
  /** Agent names of the side's runs, joined with `+` (normally one name). */
  readonly label: string;
  /** Recording names of the side's runs. */
  readonly recordings: readonly string[];
  /** Seeds expected per question: the `seeds` option, or every seed seen in the side, in order of first appearance. */
  readonly seeds: readonly number[];
  /** Runs in the side (after the seed filter). */
  readonly runs: number;
  /** Questions the side covers. */
  readonly questions: number;
  /** Questions only this side covers (listed, never dropped silently). */
  readonly unpaired: readonly string[];
  /** Per paired question, the expected seeds with no run. */
  readonly missingSeeds: readonly MissingSeeds[];
  /** Runs ending in `missing_recording` (paired or not). */
  readonly missingRecordings: readonly MissingRun[];
  /** Fewest and most runs per paired question. */
  readonly runsPerQuestion: { readonly min: number; readonly max: number };
  /** Runs whose agent program failed, grouped by cause, most runs first (empty when none did). */
  readonly agentFailures: readonly AgentFailure[];
}

/** The paired, per-question comparison of base and candidate (SPEC §7). */
export interface Comparison {
  readonly base: SideSummary;
  readonly candidate: SideSummary;
  /**
   * Questions both sides cover and every run of which replayed, in the base's order of first
   * appearance: the paired statistics are over these only.
   */
  readonly questions: readonly QuestionComparison[];
  /** Questions both sides cover that are left out of the statistics: a run has no recording. */
  readonly excluded: readonly ExcludedQuestion[];
  /** Mean of the paired differences d. */
  readonly meanDifference: number;
  /** Student-t interval of the mean of d; `kind: 'none'` for one question (or none compared). */
  readonly interval: StudentTInterval;
  readonly fixed: readonly string[];
  readonly broken: readonly string[];
  readonly signTest: SignTestResult;
  readonly stableBreaks: readonly string[];
  readonly smallestDetectable: SmallestDetectable;
  /** True when every paired question has one run per side: every flip then counts as stable. */
  readonly singleRun: boolean;
  readonly rules: GateRules;
}

/** Failure codes of the gate. */
export type GateReasonCode = 'stable_break' | 'interval_below_zero' | 'missing_recording' | 'unpaired_question' | 'agent_failure';

/** Informational codes: said in the report, never fail the gate on their own. */
export type GateNoteCode =
  | 'single_run'
  | 'no_interval'
  | 'unpaired_question'
  | 'missing_seeds'
  | 'missing_recording'
  | 'agent_failure'
  | 'ambiguous_golden'
  | 'ambiguity_not_checked'
  | 'excluded_questions'
  | 'interval_clipped';

/** One named reason the gate failed, with the questions behind it. */
export interface GateReason {
  readonly code: GateReasonCode;
  readonly message: string;
  readonly questions: readonly string[];
}

/** One thing the reader should know that does not fail the gate by itself. */
export interface GateNote {
  readonly code: GateNoteCode;
  readonly message: string;
  readonly questions: readonly string[];
}

export interface GateVerdict {
  readonly verdict: 'pass' | 'fail';
  /** Empty exactly when the verdict is `pass`. */
  readonly reasons: readonly GateReason[];
  readonly notes: readonly GateNote[];
}

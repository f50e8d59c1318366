/**
 * Shapes of the judge (issue 8; the regression-gate chapter, "Judge only what can't be
 * compared" and "Calibrate the judge against reference labels"). A judge is a model call that
 * grades text a results match cannot: two reasons for declining (pairwise), or one answer's
 * method, SQL and result (grading, used to calibrate the judge against execution-match labels).
 */

/** A pairwise verdict label: the text shown first (A), second (B), or a tie. */
export type PairLabel = 'A' | 'B' | 'tie';

/** A grading verdict label. */
export type GradeLabel = 'correct' | 'incorrect';

/**
 * The judge's reply that could not be read as a verdict. It is an outcome, counted in every
 * report, never an exception.
 */
export interface UnparsedVerdict {
  readonly label: 'unparsed';
  /** Why it could not be read, e.g. `verdict "C" is not one of A, B, tie`. */
  readonly problem: string;
  /** The reply text as the model wrote it (possibly empty). */
  readonly raw: string;
}

/** A parsed pairwise verdict, or {@link UnparsedVerdict}. */
export type PairVerdict = { readonly label: PairLabel; /** The judge's stated reason ('' if none). */ readonly reason: string } | UnparsedVerdict;

/** A parsed grading verdict, or {@link UnparsedVerdict}. */
export type GradeVerdict = { readonly label: GradeLabel; /** The judge's stated reason ('' if none). */ readonly reason: string } | UnparsedVerdict;

/** Which configuration a text came from. */
export type Side = 'base' | 'candidate';

/** One text of a pair: a decline reason or a question back. */
export interface PairText {
  /** Configuration (agent) name. */
  readonly name: string;
  /** The run's outcome: `declined` or `asked_back`. */
  readonly outcome: string;
  readonly text: string;
}

/** A question on which both configurations gave text instead of a number. */
export interface JudgePair {
  readonly questionId: string;
  readonly question: string;
  /** The golden question's kind (`decline`, `answer`, `forbidden`), for the split by kind. */
  readonly kind: string;
  readonly base: PairText;
  readonly candidate: PairText;
}

/** A pair judged in both orders. */
export interface JudgedPair {
  readonly pair: JudgePair;
  /** Verdict with the base text shown first (A = base). */
  readonly baseFirst: PairVerdict;
  /** Verdict with the candidate text shown first (A = candidate). */
  readonly candidateFirst: PairVerdict;
  /** Request keys of the two judge calls (base first, candidate first), when known. */
  readonly keys?: readonly [string, string];
}

/** A pair (or an answer to grade) that could not be judged, and why (e.g. one side has no reason text); `questionId` is the case id for answers. */
export interface SkippedPair {
  readonly questionId: string;
  readonly reason: string;
}

/** An answer's result as shown to a grading judge. */
export interface ShownResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
}

/** One answer to be graded, with its reference label from the results match. */
export interface GradingCase {
  /** Unique id, by default `<questionId> <agent>` (the chapter's `gq-002 schema-only`). */
  readonly caseId: string;
  readonly questionId: string;
  /** The agent (or system) that gave the answer; calibration is split by it. */
  readonly agent: string;
  readonly question: string;
  /** How the answer was reached, in words (metric and filters, or "one SQL query"). */
  readonly method: string;
  readonly sql: string;
  readonly result: ShownResult;
  /** Whether row order matters: if not, rows are sorted before the judge sees them. */
  readonly ordered: boolean;
  /** The reference label, recomputable by anyone: execution match against the golden answer. */
  readonly reference: GradeLabel;
}

/** A case with the judge's verdict (the minimum calibration needs). */
export interface CalibrationCase {
  readonly caseId: string;
  readonly agent: string;
  readonly reference: GradeLabel;
  readonly verdict: GradeVerdict;
}

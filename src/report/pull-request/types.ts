/**
 * The pull request view: everything the PR comment and the job summary show, as plain JSON.
 * The Action writes it into its JSON report (`pullRequest`), so that a second workflow with a
 * write token (`command: comment`, the fork pattern) renders the same comment from the report
 * alone. All text in it is untrusted (model output, golden files, file names of the pull
 * request): the renderer makes every string inert. Fractions are in [0, 1], differences in
 * [−1, 1]; never NaN.
 */
import type { Outcome } from '../../scoring/types.js';
import type { SqlDialect } from '../../warehouse/types.js';

/** Version of {@link PullRequestView}; bumped on any incompatible change. */
export const PULL_REQUEST_VIEW_VERSION = 1;

/** First rows of a result, cells already formatted as text. */
export interface ResultPreview {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
}

/** Runs of one side that gave the same answer (same SQL, text and outcome). */
export interface AnswerVariant {
  /** Seeds that gave this answer, ascending. */
  readonly seeds: readonly number[];
  readonly outcome: Outcome;
  readonly sql?: string;
  /** Written answer, decline reason or question back. */
  readonly text?: string;
  readonly result?: ResultPreview;
  /** Why not correct (first line): match explanation, error message. */
  readonly detail?: string;
}

/** One side's runs of one question, with what they answered. */
export interface SideEvidence {
  readonly outcomes: readonly { readonly seed: number; readonly outcome: Outcome }[];
  /** Most frequent first (ties: lowest seed first). */
  readonly answers: readonly AnswerVariant[];
}

/** Where a golden question comes from. */
export interface QuestionPlace {
  readonly id: string;
  /** The question as asked; '' when not known (runs files). */
  readonly question: string;
  readonly db?: string;
  /** Golden file, repository-relative when known. */
  readonly file?: string;
  readonly line?: number;
}

/** A stable break with what both sides answered and the golden result. */
export interface StableBreakView extends QuestionPlace {
  readonly golden: { readonly sql?: string; readonly result?: ResultPreview; readonly error?: string };
  readonly base: SideEvidence;
  readonly candidate: SideEvidence;
  /** Why the golden result is ambiguous (golden LIMIT cuts through ties), when it is. */
  readonly ambiguous?: string;
  /** SQL dialect of the question's database, for laying out its SQL (default `sqlite`). */
  readonly dialect?: SqlDialect;
}

/** One side of a moved question: correct runs of runs, per-seed outcomes in seed order. */
export interface MovedSide {
  readonly correct: number;
  readonly runs: number;
  readonly outcomes: readonly Outcome[];
}

/** A question that moved (fixed or broken). */
export interface MovedQuestionView extends QuestionPlace {
  readonly movement: 'fixed' | 'broken';
  readonly stableBreak: boolean;
  readonly difference: number;
  readonly base: MovedSide;
  readonly candidate: MovedSide;
  readonly ambiguous: boolean;
}

/** One side of a gated comparison. */
export interface SideView {
  /** Agent name(s) of the side's runs. */
  readonly label: string;
  readonly recordings: readonly string[];
  readonly seeds: readonly number[];
  readonly correct: number;
  readonly runs: number;
  /** 95% Wilson interval of correct / runs. */
  readonly wilson: readonly [number, number];
  readonly missingRecordings: number;
  /** Correct runs per seed, in seed order. */
  readonly perSeed: readonly { readonly seed: number; readonly correct: number; readonly runs: number }[];
  /** Questions only this side covers. */
  readonly unpaired: readonly string[];
}

/** The gate of one agent: base vs candidate. */
export interface AgentGateView {
  readonly agent: string;
  readonly verdict: 'pass' | 'fail';
  readonly reasons: readonly { readonly code: string; readonly message: string }[];
  readonly notes: readonly { readonly code: string; readonly message: string }[];
  readonly base: SideView;
  readonly candidate: SideView;
  /** Questions compared (covered by both sides). */
  readonly questions: number;
  /**
   * Questions covered by both sides but left out of the paired statistics because a run has no
   * recording (when the gate result says so; absent otherwise).
   */
  readonly excluded?: number;
  /**
   * Mean paired difference (candidate − base) and its Student-t interval (null: none), the
   * interval within [−1, 1]: `clipped` is true when the t interval reached past either end
   * (no paired difference lies outside [−1, 1]).
   */
  readonly change: {
    readonly mean: number;
    readonly low: number | null;
    readonly high: number | null;
    readonly confidence: number;
    readonly note: string | null;
    readonly clipped?: boolean;
  };
  readonly fixed: number;
  readonly broken: number;
  /** Exact two-sided sign test p of fixed vs broken. */
  readonly signTestP: number;
  readonly stableBreakRule: { readonly baseMin: number; readonly candidateMax: number };
  /** Every compared question has one run per side: every flip counts as stable. */
  readonly singleRun: boolean;
  /** Number of stable breaks (the list below may hold fewer, with evidence). */
  readonly stableBreakCount: number;
  readonly stableBreaks: readonly StableBreakView[];
  /** Every moved question, stable breaks first, then larger changes first. */
  readonly moved: readonly MovedQuestionView[];
}

/** A score of one agent (command `score`, or a gate that fell back to scoring the head). */
export interface AgentScoreView {
  readonly agent: string;
  readonly correct: number;
  readonly runs: number;
  readonly wilson: readonly [number, number];
  readonly missingRecordings: number;
}

/** A file the pull request changed, with git's status letter (A, M, D, R, …). */
export interface ChangedFileView {
  readonly path: string;
  readonly status: string;
}

/** What the pull request changed that the agents depend on. */
export interface ChangesView {
  /** Prompt files of the agents, with changed line counts. */
  readonly prompts: readonly (ChangedFileView & { readonly added: number; readonly removed: number })[];
  readonly semantic: readonly ChangedFileView[];
  /** Golden files, with the question ids added, removed and edited. */
  readonly golden: readonly (ChangedFileView & {
    readonly added: readonly string[];
    readonly removed: readonly string[];
    readonly edited: readonly string[];
  })[];
  /** Per agent: recording files changed and the recorded calls added / removed. */
  readonly recordings: readonly {
    readonly agent: string;
    readonly files: readonly ChangedFileView[];
    readonly callsAdded: number;
    readonly callsRemoved: number;
    /** Calls recorded for the same request whose reply differs (re-recorded, or edited by hand). */
    readonly repliesChanged?: number;
  }[];
  /** The config file itself changed. */
  readonly config: boolean;
}

/** A MissingRecording run, for the head of the comment. */
export interface MissingView {
  readonly side: 'base' | 'candidate';
  readonly agent: string;
  readonly questionId: string;
  readonly seed: number;
}

/** Everything the PR comment and the job summary show. */
export interface PullRequestView {
  readonly schemaVersion: typeof PULL_REQUEST_VIEW_VERSION;
  readonly kind: 'replaygate-pull-request';
  /** What ran: `gate`, or `score` / `check` of the head only. */
  readonly command: 'gate' | 'score' | 'check';
  readonly verdict: 'pass' | 'fail';
  /** False under `fail-on: never` (adoption): a failing verdict does not fail the check. */
  readonly enforced: boolean;
  /** Config file, workspace-relative. */
  readonly config: string;
  readonly base?: { readonly sha: string; readonly label: string };
  readonly headSha?: string;
  /** Warnings under the title, e.g. that the base could not be loaded (our own words). */
  readonly notes: readonly string[];
  readonly reasons: readonly { readonly code: string; readonly message: string }[];
  /** Gated agents (command `gate`), config order. */
  readonly agents: readonly AgentGateView[];
  /** Scored agents (command `score`). */
  readonly scores: readonly AgentScoreView[];
  /** Head agents new in the pull request (scored, not gated). */
  readonly newAgents: readonly string[];
  readonly missingRecordingCount: number;
  /** The first missing recordings (at most {@link MAX_MISSING_IN_VIEW}). */
  readonly missingRecordings: readonly MissingView[];
  /** Agent → the changed file that most likely caused its missing recordings. */
  readonly causes: Readonly<Record<string, string>>;
  /** Candidate agent → the one `replaygate record` command that records exactly its missing runs, seeds included. */
  readonly rerecord?: Readonly<Record<string, string>>;
  /** `undefined` outside a pull request (nothing to compare against). */
  readonly changes?: ChangesView;
}

/** Missing recordings kept in the view (the count is exact). */
export const MAX_MISSING_IN_VIEW = 100;
/** Stable breaks kept with evidence in the view, per agent (the count is exact). */
export const MAX_BREAKS_IN_VIEW = 200;
/** Moved questions kept in the view, per agent. */
export const MAX_MOVED_IN_VIEW = 5000;

/** Outcome of one run (SPEC §2). On a `decline`/`forbidden` question a decline is `correct`. */
export type Outcome =
  | 'correct'
  | 'wrong_number'
  | 'declined'
  | 'asked_back'
  | 'error'
  | 'step_limit'
  | 'missing_recording';

export const OUTCOMES: readonly Outcome[] = [
  'correct',
  'wrong_number',
  'declined',
  'asked_back',
  'error',
  'step_limit',
  'missing_recording',
];

/**
 * One scored run as kept in the JSON report (`runs[]`). Self-contained, so that reports of
 * disjoint question shards merge by concatenating `runs`.
 */
export interface RunRecord {
  /** Agent name, or the recording name when scored from an import. */
  readonly agent: string;
  readonly recording: string;
  readonly questionId: string;
  readonly split: 'dev' | 'test';
  readonly kind: 'answer' | 'decline' | 'forbidden';
  readonly db?: string;
  readonly seed: number;
  readonly outcome: Outcome;
  /** Request keys of the model calls in order. */
  readonly keys: readonly string[];
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Final SQL of the answer, when it has one. */
  readonly sql?: string;
  /** Every SQL statement the run executed, in order, when there is more than the final one (checks read the whole trace). */
  readonly queries?: readonly string[];
  /** Metrics the run queried through the semantic layer (`query_metric`), in order, when any. */
  readonly metrics?: readonly string[];
  /** `sha256:` of the normalised answer result (order-insensitive unless ordered), for agreement across runs. */
  readonly resultDigest?: string;
  readonly rowCount?: number;
  readonly truncated?: boolean;
  /** First rows of the answer (at most 100). */
  readonly preview?: { readonly columns: readonly string[]; readonly rows: readonly (readonly unknown[])[] };
  /** Written answer / decline reason / question back. */
  readonly text?: string;
  /** Why the run is not correct: error message, MissingRecording message, match explanation. */
  readonly detail?: string;
  /**
   * For an `error` run whose agent program itself failed (a `command` agent that exited non-zero,
   * was killed, timed out or printed no answer): the cause in one line, the same for every run
   * that failed alike (e.g. `exited with code 1: ModuleNotFoundError: No module named 'x'`). The
   * gate fails when one side's runs fail alike (`agent_failure`, docs/gate.md).
   */
  readonly failure?: string;
}

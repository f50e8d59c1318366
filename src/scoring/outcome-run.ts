import type { Outcome, RunRecord } from './types.js';

/** What every run of one question by one agent shares: who answered which question. */
export interface RunQuestion {
  readonly agent: string;
  readonly recording: string;
  readonly questionId: string;
  readonly split: RunRecord['split'];
  readonly kind: RunRecord['kind'];
  readonly db?: string;
}

/** A run's model calls and tokens. */
export type RunUsage = Pick<RunRecord, 'calls' | 'promptTokens' | 'completionTokens'>;

const NO_KEYS: readonly string[] = Object.freeze([]);

/**
 * A run record reduced to its outcome (the gate's runs: `replayAgent`'s `runFields: 'outcome'`),
 * kept small because the gate holds every run of both sides to the end (100,000 at 10,000
 * questions × 5 seeds × 2 sides): the fields its question shares are one object for all its
 * seeds, read through getters; a run itself holds its seed, outcome and counts. Its JSON (and
 * {@link OutcomeRun.toJSON}) is the plain record with the fields in the order of every run record.
 */
class OutcomeRun {
  constructor(
    private readonly of: RunQuestion,
    readonly seed: number,
    readonly outcome: Outcome,
    readonly calls: number,
    readonly promptTokens: number,
    readonly completionTokens: number,
  ) {}

  get agent(): string {
    return this.of.agent;
  }
  get recording(): string {
    return this.of.recording;
  }
  get questionId(): string {
    return this.of.questionId;
  }
  get split(): RunRecord['split'] {
    return this.of.split;
  }
  get kind(): RunRecord['kind'] {
    return this.of.kind;
  }
  get db(): string | undefined {
    return this.of.db;
  }
  get keys(): readonly string[] {
    return NO_KEYS;
  }
  get detail(): string | undefined {
    return undefined;
  }

  /** The plain record, fields in their order. */
  toJSON(): RunRecord {
    const { agent, recording, questionId, split, kind, db } = this.of;
    const { seed, outcome, keys, calls, promptTokens, completionTokens, detail } = this;
    const plain: { -readonly [K in keyof RunRecord]: RunRecord[K] } =
      db === undefined
        ? { agent, recording, questionId, split, kind, seed, outcome, keys, calls, promptTokens, completionTokens }
        : { agent, recording, questionId, split, kind, db, seed, outcome, keys, calls, promptTokens, completionTokens };
    if (detail !== undefined) plain.detail = detail;
    return plain;
  }
}

/** An {@link OutcomeRun} that keeps its request keys and detail (a missing recording's). */
class DetailedOutcomeRun extends OutcomeRun {
  constructor(
    of: RunQuestion,
    seed: number,
    outcome: Outcome,
    usage: RunUsage,
    private readonly ownKeys: readonly string[],
    private readonly ownDetail: string | undefined,
  ) {
    super(of, seed, outcome, usage.calls, usage.promptTokens, usage.completionTokens);
  }
  override get keys(): readonly string[] {
    return this.ownKeys;
  }
  override get detail(): string | undefined {
    return this.ownDetail;
  }
}

/**
 * The run record of a run reduced to its outcome: `of` (shared by the question's runs), its
 * seed, outcome and counts, and — for a missing recording only, else empty — its keys and detail.
 */
export function outcomeRun(of: RunQuestion, seed: number, outcome: Outcome, usage: RunUsage, keys: readonly string[] = NO_KEYS, detail?: string): RunRecord {
  const run =
    keys.length === 0 && detail === undefined
      ? new OutcomeRun(of, seed, outcome, usage.calls, usage.promptTokens, usage.completionTokens)
      : new DetailedOutcomeRun(of, seed, outcome, usage, keys, detail);
  // A RunRecord but for `db` and `detail`, whose getters give undefined where a plain record has no such field.
  return run as unknown as RunRecord;
}

/**
 * What a question's runs by one agent share, one object per (question, agent, recording) asked
 * for: a short list per golden question (one entry per agent and recording, found by a scan),
 * not maps — 10,000 questions with a map of agents, each holding a map of recordings, were
 * 30,000 maps (about 5 MB) kept to the end of the gate.
 */
const shared = new WeakMap<object, readonly RunQuestion[]>();

/**
 * The {@link RunQuestion} of `question`'s runs by `of.agent` from `of.recording` (a copy of those
 * fields of `of`, made on first request), the same object for every seed (`question`: the golden question object, which names it for as long as it lives).
 */
export function runQuestionOf(question: object, of: RunQuestion): RunQuestion {
  const known = shared.get(question) ?? [];
  const found = known.find((q) => q.agent === of.agent && q.recording === of.recording);
  if (found !== undefined) return found;
  const { agent, recording, questionId, split, kind, db } = of; // `of` may hold more (a run's base): keep only these
  const value: RunQuestion = db === undefined ? { agent, recording, questionId, split, kind } : { agent, recording, questionId, split, kind, db };
  shared.set(question, [...known, value]); // a new list of exactly its length (no spare room a push would leave)
  return value;
}

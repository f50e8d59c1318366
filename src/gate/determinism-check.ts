import type { RunRecord } from '../scoring/types.js';

/** Fields of a run compared by {@link compareReplays}. */
export type ReplayField = 'keys' | 'outcome' | 'sql' | 'text' | 'resultDigest' | 'rowCount' | 'calls';

const REPLAY_FIELDS: readonly ReplayField[] = ['keys', 'outcome', 'sql', 'text', 'resultDigest', 'rowCount', 'calls'];

/** One run that differs between two replays of the same seed. */
export interface ReplayDifference {
  readonly questionId: string;
  readonly seed: number;
  readonly fields: readonly ReplayField[];
}

/** Result of comparing two replays (see {@link compareReplays}). */
export interface ReplayComparison {
  /** Runs present in both replays. */
  readonly compared: number;
  /** Runs identical in every compared field. */
  readonly identical: number;
  readonly differences: readonly ReplayDifference[];
  /** `questionId seed` of runs present in one replay only. */
  readonly onlyFirst: readonly string[];
  readonly onlySecond: readonly string[];
  /** True when nothing differs and nothing is missing. */
  readonly deterministic: boolean;
}

function runKey(run: RunRecord): string {
  return `${run.questionId} seed ${run.seed}`;
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * JSON text with object keys sorted at every depth: equal for equal values whatever their key
 * order. `undefined` object fields are dropped, as JSON.stringify drops them.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  }) ?? 'undefined';
}

/**
 * Determinism check on scored runs (SPEC §7; the regression-gate chapter, "Repeat runs to see
 * the variance": "seed 2718 again: 24 of 24 calls identical"): compares two replays of the same
 * seeds run by run, on the request keys of every model call (so the requests), the outcome, and
 * what the replies produced (final SQL, written text, result digest, row count, call count).
 * Every difference is listed, never ignored.
 *
 * @param first - runs of one replay, one per question and seed
 * @param second - runs of a second replay of the same seeds
 * @example compareReplays(runs, runs) // { compared: runs.length, identical: runs.length, differences: [], deterministic: true, … }
 */
export function compareReplays(first: readonly RunRecord[], second: readonly RunRecord[]): ReplayComparison {
  const a = new Map(first.map((r) => [runKey(r), r]));
  const b = new Map(second.map((r) => [runKey(r), r]));
  const differences: ReplayDifference[] = [];
  let compared = 0;
  for (const [key, run] of a) {
    const other = b.get(key);
    if (other === undefined) continue;
    compared += 1;
    const fields = REPLAY_FIELDS.filter((f) => !same(run[f], other[f]));
    if (fields.length > 0) differences.push({ questionId: run.questionId, seed: run.seed, fields });
  }
  const onlyFirst = [...a.keys()].filter((k) => !b.has(k));
  const onlySecond = [...b.keys()].filter((k) => !a.has(k));
  return {
    compared,
    identical: compared - differences.length,
    differences,
    onlyFirst,
    onlySecond,
    deterministic: differences.length === 0 && onlyFirst.length === 0 && onlySecond.length === 0,
  };
}

/** One recorded call: its request key and the reply (any JSON). */
export interface RecordedCall {
  readonly key: string;
  readonly reply: unknown;
}

/** Result of comparing two recordings of the same seed (see {@link compareRecordedCalls}). */
export interface CallComparison {
  /** Calls of `second` whose key `first` also holds. */
  readonly compared: number;
  /** Of those, calls with an identical reply. */
  readonly identical: number;
  /** Keys present in both whose replies differ. */
  readonly differentReplies: readonly string[];
  /** Keys of `second` that `first` lacks: the request itself changed. */
  readonly newRequests: readonly string[];
  readonly deterministic: boolean;
}

/**
 * Determinism check on recordings: a second recording made with the same seed should hold
 * the same request keys with identical replies (the chapter's "24 of 24 calls identical to
 * decline-runs"). Replies are compared as canonical JSON (object key order ignored).
 *
 * @param first - the original recording's calls
 * @param second - the calls of the same seed recorded again
 * @example compareRecordedCalls([{ key: 'sha256:a', reply: { content: 'x' } }], [{ key: 'sha256:a', reply: { content: 'x' } }]).identical // 1
 */
export function compareRecordedCalls(first: readonly RecordedCall[], second: readonly RecordedCall[]): CallComparison {
  const original = new Map(first.map((c) => [c.key, c.reply]));
  const differentReplies: string[] = [];
  const newRequests: string[] = [];
  let compared = 0;
  for (const call of second) {
    if (!original.has(call.key)) {
      newRequests.push(call.key);
      continue;
    }
    compared += 1;
    if (!same(original.get(call.key), call.reply)) differentReplies.push(call.key);
  }
  return {
    compared,
    identical: compared - differentReplies.length,
    differentReplies,
    newRequests,
    deterministic: differentReplies.length === 0 && newRequests.length === 0,
  };
}

import type { Recording } from './recording.js';

/**
 * What changed in a recording between two versions (`replaygate recordings diff <base-ref>`,
 * and the pull-request comment): per run (question × seed), whether it was added, dropped,
 * re-recorded or pruned, and how many calls. Pure: it compares two lists of call identities.
 */

/** One call, as much as the diff needs: where it is in its run, its request key and its reply. */
export interface CallIdentity {
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
  /** The request key (`sha256:…`). */
  readonly key: string;
  /** A digest of the reply (e.g. SHA-256 of its canonical JSON): a `--force` re-record changes it, not the key. */
  readonly reply: string;
}

/** A change to one question, over the seeds it affects. */
export interface QuestionChange {
  readonly questionId: string;
  /** Seeds of the question with this kind of change, ascending. */
  readonly seeds: readonly number[];
  /** Calls in the new version that the old one did not have. */
  readonly callsAdded: number;
  /** Calls of the old version that the new one no longer has. */
  readonly callsRemoved: number;
}

/** The summary of one recording's change (one agent's). */
export interface RecordingDiff {
  readonly agent: string;
  /** Recording folder (repository-relative, `/` separators). */
  readonly recording: string;
  readonly base: { readonly runs: number; readonly calls: number } | undefined;
  readonly head: { readonly runs: number; readonly calls: number } | undefined;
  /** Runs recorded on both sides with new calls in the head (a prompt edit, `--force`, a longer trace). */
  readonly rerecorded: readonly QuestionChange[];
  /** Runs recorded only in the head. */
  readonly added: readonly QuestionChange[];
  /** Runs recorded only in the base. */
  readonly dropped: readonly QuestionChange[];
  /** Runs recorded on both sides whose head lost calls and gained none (`recordings prune`). */
  readonly pruned: readonly QuestionChange[];
  /** Runs recorded on both sides with the same calls. */
  readonly unchangedRuns: number;
  readonly callsAdded: number;
  readonly callsRemoved: number;
}

const runId = (questionId: string, seed: number): string => `${questionId}\u0000${seed}`;
const callId = (c: CallIdentity): string => `${c.callIndex}\u0000${c.key}\u0000${c.reply}`;

/**
 * Compares two versions of a recording run by run. A run is *added* when only the head records
 * it, *dropped* when only the base does, *re-recorded* when the head has calls the base had not
 * (calls the base had and the head lost are counted too), *pruned* when the head only lost calls.
 * Changes are grouped by question (seeds listed) in question-id order.
 * @param base - the calls of the base version, or undefined when the recording did not exist.
 * @param head - the calls of the head version, or undefined when it was deleted.
 * @example diffRecordingCalls('sql', 'recordings/sql', [], [{ questionId: 'q1', seed: 0, callIndex: 0, key: 'sha256:a', reply: 'r' }]).added // [{ questionId: 'q1', seeds: [0], callsAdded: 1, callsRemoved: 0 }]
 */
export function diffRecordingCalls(agent: string, recording: string, base: readonly CallIdentity[] | undefined, head: readonly CallIdentity[] | undefined): RecordingDiff {
  const group = (calls: readonly CallIdentity[]): Map<string, { questionId: string; seed: number; calls: Set<string> }> => {
    const out = new Map<string, { questionId: string; seed: number; calls: Set<string> }>();
    for (const c of calls) {
      const id = runId(c.questionId, c.seed);
      const run = out.get(id) ?? { questionId: c.questionId, seed: c.seed, calls: new Set<string>() };
      run.calls.add(callId(c));
      out.set(id, run);
    }
    return out;
  };
  const b = group(base ?? []);
  const h = group(head ?? []);
  type Kind = 'rerecorded' | 'added' | 'dropped' | 'pruned';
  const changes: Record<Kind, Map<string, { seeds: number[]; callsAdded: number; callsRemoved: number }>> = {
    rerecorded: new Map(),
    added: new Map(),
    dropped: new Map(),
    pruned: new Map(),
  };
  let unchangedRuns = 0;
  let callsAdded = 0;
  let callsRemoved = 0;
  const note = (kind: Kind, questionId: string, seed: number, added: number, removed: number): void => {
    const entry = changes[kind].get(questionId) ?? { seeds: [], callsAdded: 0, callsRemoved: 0 };
    entry.seeds.push(seed);
    entry.callsAdded += added;
    entry.callsRemoved += removed;
    changes[kind].set(questionId, entry);
    callsAdded += added;
    callsRemoved += removed;
  };
  for (const [id, run] of h) {
    const old = b.get(id);
    if (!old) {
      note('added', run.questionId, run.seed, run.calls.size, 0);
      continue;
    }
    const added = [...run.calls].filter((c) => !old.calls.has(c)).length;
    const removed = [...old.calls].filter((c) => !run.calls.has(c)).length;
    if (added > 0) note('rerecorded', run.questionId, run.seed, added, removed);
    else if (removed > 0) note('pruned', run.questionId, run.seed, 0, removed);
    else unchangedRuns += 1;
  }
  for (const [id, run] of b) if (!h.has(id)) note('dropped', run.questionId, run.seed, 0, run.calls.size);
  const list = (kind: Kind): QuestionChange[] =>
    [...changes[kind]]
      .sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0))
      .map(([questionId, e]) => ({ questionId, seeds: [...e.seeds].sort((x, y) => x - y), callsAdded: e.callsAdded, callsRemoved: e.callsRemoved }));
  const size = (calls: readonly CallIdentity[] | undefined, runs: Map<string, unknown>) => (calls === undefined ? undefined : { runs: runs.size, calls: calls.length });
  return {
    agent,
    recording,
    base: size(base, b),
    head: size(head, h),
    rerecorded: list('rerecorded'),
    added: list('added'),
    dropped: list('dropped'),
    pruned: list('pruned'),
    unchangedRuns,
    callsAdded,
    callsRemoved,
  };
}

/** True when the diff found no change at all. */
export function isUnchanged(diff: RecordingDiff): boolean {
  return diff.callsAdded === 0 && diff.callsRemoved === 0 && (diff.base === undefined) === (diff.head === undefined);
}

/**
 * The call identities of an open recording (its reply digests are read back from the files).
 * @example callIdentities(recording).length // recording.size
 */
export function callIdentities(recording: Recording): CallIdentity[] {
  return recording.calls().map((ref) => ({ questionId: ref.questionId, seed: ref.seed, callIndex: ref.callIndex, key: ref.key, reply: recording.replyDigest(ref) }));
}

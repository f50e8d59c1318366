/** The recordings diff as a pure function of two lists of calls, and its renderers. */
import { describe, expect, it } from 'vitest';
import { diffRecordingCalls, isUnchanged, type CallIdentity } from '../../src/recording/diff.js';
import { recordingsDiffMarkdown, recordingsDiffText, seedRanges } from '../../src/report/recordings-diff.js';

const call = (questionId: string, seed: number, callIndex = 0, key = `k-${questionId}-${seed}-${callIndex}`, reply = 'r'): CallIdentity => ({ questionId, seed, callIndex, key, reply });
const runs = (questionId: string, seeds: number[], calls = 1): CallIdentity[] => seeds.flatMap((s) => Array.from({ length: calls }, (_, i) => call(questionId, s, i)));

describe('diffRecordingCalls', () => {
  const base = [...runs('q1', [0, 1, 2]), ...runs('q2', [0, 1], 2), ...runs('q3', [0]), ...runs('q4', [0, 1], 3)];
  const head = [
    ...runs('q1', [0, 1, 2]), // unchanged
    ...runs('q2', [0, 1], 2),
    call('q2', 1, 2, 'k-new'), // a longer trace on seed 1: re-recorded
    call('q2', 0, 0, 'k-q2-0-0', 'new reply'), // --force: same key, another reply
    ...runs('q4', [0, 1], 2), // the third call of each run pruned
    ...runs('q5', [0, 1, 2, 3]), // added; q3 dropped
  ];
  const d = diffRecordingCalls('tools', 'recordings/tools', base, head);

  it('classifies every run and counts calls', () => {
    expect(d.rerecorded).toEqual([{ questionId: 'q2', seeds: [0, 1], callsAdded: 2, callsRemoved: 0 }]);
    expect(d.added).toEqual([{ questionId: 'q5', seeds: [0, 1, 2, 3], callsAdded: 4, callsRemoved: 0 }]);
    expect(d.dropped).toEqual([{ questionId: 'q3', seeds: [0], callsAdded: 0, callsRemoved: 1 }]);
    expect(d.pruned).toEqual([{ questionId: 'q4', seeds: [0, 1], callsAdded: 0, callsRemoved: 2 }]);
    expect(d.unchangedRuns).toBe(3);
    expect([d.callsAdded, d.callsRemoved]).toEqual([6, 3]);
    expect([d.base, d.head]).toEqual([{ runs: 8, calls: 14 }, { runs: 11, calls: 17 }]);
  });

  it('a new and a deleted recording', () => {
    expect(diffRecordingCalls('a', 'r', undefined, runs('q1', [0]))).toMatchObject({ base: undefined, added: [{ questionId: 'q1' }] });
    expect(diffRecordingCalls('a', 'r', runs('q1', [0]), undefined)).toMatchObject({ head: undefined, dropped: [{ questionId: 'q1' }] });
    expect(isUnchanged(diffRecordingCalls('a', 'r', undefined, undefined))).toBe(true);
    expect(isUnchanged(diffRecordingCalls('a', 'r', base, base))).toBe(true);
  });

  it('renders text and Markdown a reviewer reads (names escaped, long lists cut)', () => {
    expect(seedRanges([0, 1, 2, 4, 6, 7])).toBe('0–2, 4, 6–7');
    const text = recordingsDiffText([d], 'origin/main');
    expect(text).toBe(
      'Recordings: origin/main → work tree\n\ntools (recordings/tools): 2 runs re-recorded, 4 runs added, 1 run dropped, 2 runs pruned · +6 −3 calls\n' +
        '  re-recorded: q2 (seeds 0–1; +2 calls)\n  added: q5 (seeds 0–3; +4 calls)\n  dropped: q3 (seed 0; −1 call)\n  pruned: q4 (seeds 0–1; −2 calls)\n',
    );
    const many = diffRecordingCalls('a|b', 'r', [], Array.from({ length: 30 }, (_, i) => call(`q_${i}`, 0)));
    const md = recordingsDiffMarkdown([many, diffRecordingCalls('same', 's', base, base)], 'main');
    expect(md).toContain('| a\\|b | `r` | – | 30 (30 questions) | – | – | +30 −0 |');
    expect(md).toContain('- … 10 more questions added');
    expect(md).toContain('1 other agent: recording unchanged.');
    expect(md).toContain('`q\\_0`');
    expect(recordingsDiffMarkdown([], 'main')).toBe('### Recordings\n\nCompared with `main`. No recording changed.\n');
  });
});

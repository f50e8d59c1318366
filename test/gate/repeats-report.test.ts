import { describe, expect, it } from 'vitest';
import { compareRecordedCalls, compareReplays } from '../../src/gate/determinism-check.js';
import { repeatsReport } from '../../src/gate/repeats-report.js';
import { DataError } from '../../src/util/errors.js';
import { chapterBase, chapterCandidate, run } from './chapter-12.js';

describe('repeatsReport', () => {
  it("the chapter's metrics-first repeats: 6,6,6,6,5 correct; gq-008 flips (4 of 5); 5 always, 6 never", () => {
    const r = repeatsReport(chapterBase());
    expect(r.label).toBe('metrics-first');
    expect(r.seeds).toEqual([2718, 1, 2, 3, 4]);
    expect(r.perSeed.map((s) => s.correct)).toEqual([6, 6, 6, 6, 5]);
    expect(r.spread).toEqual({ min: 5, max: 6 });
    expect(r.flipping.map((q) => [q.questionId, q.correct, q.runs])).toEqual([['gq-008', 4, 5]]);
    expect(r.alwaysCorrect).toBe(5);
    expect(r.neverCorrect).toBe(6);
    expect(r.missingSeeds).toEqual([]);
  });

  it("the chapter's declining repeats: 6 at every seed, no flips, 6 always, 6 never", () => {
    const r = repeatsReport(chapterCandidate());
    expect(r.perSeed.map((s) => s.correct)).toEqual([6, 6, 6, 6, 6]);
    expect(r.flipping).toEqual([]);
    expect([r.alwaysCorrect, r.neverCorrect]).toEqual([6, 6]);
  });

  it('reports missing seeds per question and rejects duplicates and empty input', () => {
    const runs = chapterBase().filter((r) => !(r.questionId === 'gq-016' && r.seed === 2));
    expect(repeatsReport(runs).missingSeeds).toEqual([{ questionId: 'gq-016', seeds: [2] }]);
    expect(() => repeatsReport([...chapterBase(), run('metrics-first', 'gq-001', 1, 'correct')])).toThrow(DataError);
    expect(() => repeatsReport([])).toThrow(DataError);
  });
});

describe('determinism check', () => {
  it('two identical replays of a seed: every run identical', () => {
    const runs = chapterBase().filter((r) => r.seed === 2718);
    expect(compareReplays(runs, runs.map((r) => ({ ...r })))).toEqual({
      compared: 12,
      identical: 12,
      differences: [],
      onlyFirst: [],
      onlySecond: [],
      deterministic: true,
    });
  });

  it('lists differing runs and fields, and runs in one replay only', () => {
    const runs = chapterBase().filter((r) => r.seed === 2718);
    const again = runs.slice(1).map((r) =>
      r.questionId === 'gq-008' ? { ...r, outcome: 'wrong_number' as const, keys: ['sha256:other'], sql: 'SELECT 1' } : r,
    );
    const c = compareReplays(runs, again);
    expect(c.deterministic).toBe(false);
    expect(c.compared).toBe(11);
    expect(c.identical).toBe(10);
    expect(c.differences).toEqual([{ questionId: 'gq-008', seed: 2718, fields: ['keys', 'outcome', 'sql'] }]);
    expect(c.onlyFirst).toEqual(['gq-001 seed 2718']);
  });

  it('recorded calls: same keys with identical replies (key order ignored); changed replies and new requests listed', () => {
    const first = [
      { key: 'sha256:a', reply: { content: 'SELECT 1', tool_calls: [] } },
      { key: 'sha256:b', reply: { content: 'x' } },
    ];
    expect(compareRecordedCalls(first, [{ key: 'sha256:a', reply: { tool_calls: [], content: 'SELECT 1' } }])).toEqual({
      compared: 1,
      identical: 1,
      differentReplies: [],
      newRequests: [],
      deterministic: true,
    });
    const c = compareRecordedCalls(first, [
      { key: 'sha256:b', reply: { content: 'y' } },
      { key: 'sha256:c', reply: { content: 'x' } },
    ]);
    expect(c).toMatchObject({ compared: 1, identical: 0, differentReplies: ['sha256:b'], newRequests: ['sha256:c'], deterministic: false });
  });
});

describe('per-seed outcomes are shared objects', () => {
  it('one frozen { seed, outcome } per pair, whatever the number of questions', async () => {
    const { seedOutcome } = await import('../../src/gate/seed-outcome.js');
    const a = seedOutcome(3, 'correct');
    expect(seedOutcome(3, 'correct')).toBe(a);
    expect(a).toEqual({ seed: 3, outcome: 'correct' });
    expect(Object.isFrozen(a)).toBe(true);
    expect(seedOutcome(3, 'error')).not.toBe(a);
    expect(seedOutcome(4, 'correct')).not.toBe(a);
  });
});

import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/gate/compare-runs.js';
import { outcomeRun, runQuestionOf, type RunQuestion } from '../../src/scoring/outcome-run.js';
import type { RunRecord } from '../../src/scoring/types.js';

const usage = { calls: 2, promptTokens: 30, completionTokens: 4 };

describe('outcome runs (the gate keeps 100,000 of them)', () => {
  it('read and serialise as the plain run record, fields in the order of every run record', () => {
    const of: RunQuestion = { agent: 'a', recording: 'rec', questionId: 'q-1', split: 'dev', kind: 'answer', db: 'shop' };
    const run = outcomeRun(of, 3, 'wrong_number', usage);
    expect([run.agent, run.recording, run.questionId, run.split, run.kind, run.db, run.seed, run.outcome, run.keys, run.calls, run.detail]).toEqual(['a', 'rec', 'q-1', 'dev', 'answer', 'shop', 3, 'wrong_number', [], 2, undefined]);
    const plain: RunRecord = { agent: 'a', recording: 'rec', questionId: 'q-1', split: 'dev', kind: 'answer', db: 'shop', seed: 3, outcome: 'wrong_number', keys: [], ...usage };
    expect(JSON.stringify(run)).toBe(JSON.stringify(plain));
    expect(JSON.stringify([run], null, 2)).toBe(JSON.stringify([plain], null, 2));

    const noDb = outcomeRun({ agent: 'a', recording: 'rec', questionId: 'q-2', split: 'test', kind: 'decline' }, 0, 'correct', usage);
    expect(JSON.stringify(noDb)).toBe(JSON.stringify({ agent: 'a', recording: 'rec', questionId: 'q-2', split: 'test', kind: 'decline', seed: 0, outcome: 'correct', keys: [], ...usage }));
  });

  it("keeps a missing recording's keys and detail", () => {
    const of: RunQuestion = { agent: 'a', recording: 'rec', questionId: 'q-1', split: 'dev', kind: 'answer' };
    const run = outcomeRun(of, 1, 'missing_recording', { calls: 0, promptTokens: 0, completionTokens: 0 }, ['sha256:ab'], 'no recording for …');
    expect(run.keys).toEqual(['sha256:ab']);
    expect(run.detail).toBe('no recording for …');
    expect(JSON.stringify(run)).toBe(
      JSON.stringify({ agent: 'a', recording: 'rec', questionId: 'q-1', split: 'dev', kind: 'answer', seed: 1, outcome: 'missing_recording', keys: ['sha256:ab'], calls: 0, promptTokens: 0, completionTokens: 0, detail: 'no recording for …' }),
    );
  });

  it("shares one question object between a question's seeds, per agent and recording", () => {
    const question = {};
    const first = runQuestionOf(question, { agent: 'a', recording: 'r', questionId: 'q', split: 'dev', kind: 'answer' });
    expect(runQuestionOf(question, { agent: 'a', recording: 'r', questionId: 'q', split: 'dev', kind: 'answer' })).toBe(first);
    expect(runQuestionOf(question, { agent: 'b', recording: 'r', questionId: 'q', split: 'dev', kind: 'answer' })).not.toBe(first);
    expect(runQuestionOf(question, { agent: 'a', recording: 'r2', questionId: 'q', split: 'dev', kind: 'answer' })).not.toBe(first);
  });

  it('compare as plain records do', () => {
    const of = (agent: string, id: string): RunQuestion => ({ agent, recording: agent, questionId: id, split: 'dev', kind: 'answer' });
    const outcomes = ['correct', 'wrong_number', 'correct', 'error'] as const;
    const lean = (agent: string, shift: number): RunRecord[] => ['q-1', 'q-2', 'q-3'].flatMap((id, i) => [0, 1].map((seed) => outcomeRun(of(agent, id), seed, outcomes[(i + seed + shift) % 4]!, usage)));
    const plain = (runs: RunRecord[]): RunRecord[] => runs.map((r) => JSON.parse(JSON.stringify(r)) as RunRecord);
    const [base, candidate] = [lean('base', 0), lean('candidate', 1)];
    expect(JSON.stringify(compareRuns(base, candidate))).toBe(JSON.stringify(compareRuns(plain(base), plain(candidate))));
  });
});

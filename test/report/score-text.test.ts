import { describe, expect, it } from 'vitest';
import { compactIds, notCorrectText, scorecardBlocks, scoreText } from '../../src/report/score-text.js';
import { buildScoreReport } from '../../src/report/score-report.js';
import type { RunRecord } from '../../src/scoring/types.js';

const run = (agent: string, questionId: string, seed: number, outcome: RunRecord['outcome']): RunRecord =>
  ({ agent, recording: agent, questionId, split: 'dev', kind: 'answer', seed, outcome, keys: [], calls: 1, promptTokens: 0, completionTokens: 0 }) as RunRecord;

describe('score text', () => {
  it('compacts ids that share a prefix, bounded with a count', () => {
    expect(compactIds(['chq-001', 'chq-002', 'chq-006'])).toBe('chq-001, 002, 006');
    expect(compactIds(['a-1', 'a-2', 'a-3'], 2)).toBe('a-1, 2, … (3 in all)');
    expect(compactIds(['0276a4a8f662', '0276a4a8f663'])).toBe('0276a4a8f662, 0276a4a8f663');
    expect(compactIds(['x', 'y'])).toBe('x, y');
    expect(compactIds([])).toBe('');
  });

  it('lists the questions that were not correct, grouped by outcome, with run counts under several seeds', () => {
    const runs = [
      run('a', 'q-01', 0, 'correct'),
      run('a', 'q-02', 0, 'wrong_number'),
      run('a', 'q-03', 0, 'error'),
      run('b', 'q-01', 0, 'wrong_number'),
      run('b', 'q-01', 1, 'wrong_number'),
      run('b', 'q-02', 0, 'correct'),
      run('b', 'q-02', 1, 'missing_recording'),
    ];
    expect(notCorrectText(runs)).toBe(
      'not correct, by outcome (first 10 of each; --json lists every run):\n' +
        'a (2 of 3 runs not correct)\n' +
        '  wrong numbers (1 question): q-02\n' +
        '  errors (1 question): q-03\n' +
        'b (3 of 4 runs not correct)\n' +
        '  wrong numbers (1 question, 2 runs): q-01 ×2\n' +
        '  missing recordings (1 question, 1 run): q-02 ×1',
    );
    expect(notCorrectText([run('a', 'q', 0, 'correct')])).toBe('');
  });

  it('splits many agents over tables no wider than 100 columns, and ends with the failing questions', () => {
    const runs = ['a', 'b', 'c', 'd', 'e'].flatMap((agent) => [run(`agent-${agent}`, 'q-1', 0, 'correct'), run(`agent-${agent}`, 'q-2', 0, 'wrong_number')]);
    const report = buildScoreReport({ tool: 't', createdAt: 'now', match: 'relaxed', seeds: [0], agents: [], ambiguousGolden: [], runs });
    const blocks = scorecardBlocks(report.scorecards);
    expect(blocks).toHaveLength(2);
    for (const b of blocks) for (const line of b.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    const text = scoreText(report);
    expect(text.trimEnd().split('\n').at(-1)).toBe('  wrong numbers (1 question): q-2');
  });
});

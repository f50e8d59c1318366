import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysePairs } from '../../src/judge/pairwise.js';
import { DEFAULT_GRADING_PROMPT, DEFAULT_PAIRWISE_PROMPT, type JudgePrompt } from '../../src/judge/prompt-template.js';
import { gradingRequest, pairwiseRequest, type JudgeSettings } from '../../src/judge/requests.js';
import { gradeAnswers, judgePairs } from '../../src/judge/run-judge.js';
import { calibrate } from '../../src/judge/calibration.js';
import type { GradingCase, JudgePair } from '../../src/judge/types.js';
import { MissingRecording, Recording, RecordingWriter, ReplayClient } from '../../src/recording/index.js';

const SETTINGS: JudgeSettings = { model: 'judge-model', temperature: 0, top_p: 1, max_tokens: 200, seed: 0 };
const PAIR: JudgePrompt = { task: 'pairwise', file: 'prompts/judge-pair.md', text: DEFAULT_PAIRWISE_PROMPT };
const GRADE: JudgePrompt = { task: 'grading', file: 'prompts/judge-answer.md', text: DEFAULT_GRADING_PROMPT };

const pairs: JudgePair[] = [
  { questionId: 'd1', question: 'Cost of shipping?', kind: 'decline', base: { name: 'b', outcome: 'declined', text: 'No shipping data.' }, candidate: { name: 'c', outcome: 'declined', text: 'Shipping costs are not recorded.' } },
  { questionId: 'd2', question: 'Refund reasons?', kind: 'decline', base: { name: 'b', outcome: 'declined', text: 'Cannot.' }, candidate: { name: 'c', outcome: 'declined', text: 'Refund reasons are not stored; ask for refunds by month.' } },
];
const answers: GradingCase[] = [
  { caseId: 'q1 b', questionId: 'q1', agent: 'b', question: 'How many singers?', method: 'one SQL query written by b', sql: 'SELECT count(*) FROM singer', result: { columns: ['count(*)'], rows: [[6]], rowCount: 1, truncated: false }, ordered: false, reference: 'correct' },
  { caseId: 'q2 b', questionId: 'q2', agent: 'b', question: 'Oldest singer?', method: 'one SQL query written by b', sql: 'SELECT name FROM singer ORDER BY age LIMIT 1', result: { columns: ['name'], rows: [['Tribal King']], rowCount: 1, truncated: false }, ordered: true, reference: 'incorrect' },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judge-rec-'));
  // A constructed judge recording: a position-biased judge on d1 (always A), a consistent one on d2.
  const writer = RecordingWriter.open(dir, 'create');
  const reply = (content: string) => ({ content });
  const usage = { prompt_tokens: 100, completion_tokens: 20 };
  const site = (question_id: string, call_index: number) => ({ question_id, seed: 0, call_index });
  writer.write({ request: pairwiseRequest(PAIR, SETTINGS, 'Cost of shipping?', 'No shipping data.', 'Shipping costs are not recorded.'), reply: reply('{"verdict": "A", "reason": "clear"}'), usage, ...site('d1', 0) });
  writer.write({ request: pairwiseRequest(PAIR, SETTINGS, 'Cost of shipping?', 'Shipping costs are not recorded.', 'No shipping data.'), reply: reply('```json\n{"verdict": "A", "reason": "clear"}\n```'), usage, ...site('d1', 1) });
  writer.write({ request: pairwiseRequest(PAIR, SETTINGS, 'Refund reasons?', 'Cannot.', 'Refund reasons are not stored; ask for refunds by month.'), reply: reply('{"verdict": "B", "reason": "offers an alternative"}'), usage, ...site('d2', 0) });
  writer.write({ request: pairwiseRequest(PAIR, SETTINGS, 'Refund reasons?', 'Refund reasons are not stored; ask for refunds by month.', 'Cannot.'), reply: reply('B is worse. {"Verdict": "a", "reason": "offers an alternative"}'), usage, ...site('d2', 1) });
  writer.write({ request: gradingRequest(GRADE, SETTINGS, answers[0]!), reply: reply('{"verdict": "correct", "reason": "counts rows"}'), usage, ...site('q1 b', 0) });
  writer.write({ request: gradingRequest(GRADE, SETTINGS, answers[1]!), reply: reply('The answer looks right to me.'), usage, ...site('q2 b', 0) });
  writer.commit({
    name: 'judge', agent: 'judge', model: 'judge-model', sampling: { temperature: 0, top_p: 1, max_tokens: 200 }, seeds: [0],
    prompt_files: {}, recorder: 'test', created: '2025-01-01T00:00:00Z', updated: '2025-01-01T00:00:00Z', recorded_splits: {}, constructed: true, extra: {},
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('judge calls replayed from a recording', () => {
  it('judges pairs in both orders and reads the position-biased and the consistent pair', async () => {
    const recording = await Recording.open(dir);
    try {
      const judged = await judgePairs(new ReplayClient(recording, 'judge'), pairs, PAIR, SETTINGS);
      const report = analysePairs(judged);
      expect(report.totals).toMatchObject({ pairs: 2, sameVerdict: 1, firstPositionBoth: 1, candidateWins: 1, longerWon: 1 });
      expect(judged[0]!.keys![0]).toMatch(/^sha256:[0-9a-f]{64}$/);
    } finally {
      recording.close();
    }
  });

  it('grades answers; a non-JSON reply is unparsed and counted', async () => {
    const recording = await Recording.open(dir);
    try {
      const graded = await gradeAnswers(new ReplayClient(recording, 'judge'), answers, GRADE, SETTINGS);
      const report = calibrate(graded, 'judge-model');
      expect(report.overall).toMatchObject({ cases: 2, unparsed: 1, judged: 1, judgeCorrect: 1 });
      expect(report.unparsedCases).toEqual([{ caseId: 'q2 b', problem: 'the reply is not JSON and contains no JSON object' }]);
    } finally {
      recording.close();
    }
  });

  it('a judge request that is not recorded is a MissingRecording, never skipped', async () => {
    const recording = await Recording.open(dir);
    try {
      await expect(judgePairs(new ReplayClient(recording, 'judge'), pairs, PAIR, { ...SETTINGS, temperature: 0.5 })).rejects.toBeInstanceOf(MissingRecording);
    } finally {
      recording.close();
    }
  });
});

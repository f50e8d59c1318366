import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJudgeConfig } from '../../src/judge/config.js';
import { loadJudgePrompt } from '../../src/judge/prompt-file.js';
import { checkJudgePrompt, DEFAULT_GRADING_PROMPT, DEFAULT_PAIRWISE_PROMPT, renderJudgePrompt, type JudgePrompt } from '../../src/judge/prompt-template.js';
import { gradingRequest, pairwiseRequest, showResult, type JudgeSettings } from '../../src/judge/requests.js';
import type { GradingCase } from '../../src/judge/types.js';
import { requestKey } from '../../src/recording/canonical.js';
import { ConfigError, DataError } from '../../src/util/errors.js';

const SETTINGS: JudgeSettings = { model: 'gpt-4o-2024-08-06', temperature: 0, top_p: 1, max_tokens: 300, seed: 0 };
const PAIR: JudgePrompt = { task: 'pairwise', file: 'prompts/judge-pair.md', text: DEFAULT_PAIRWISE_PROMPT };
const GRADE: JudgePrompt = { task: 'grading', file: 'prompts/judge-answer.md', text: DEFAULT_GRADING_PROMPT };

const answer = (rows: unknown[][], ordered = false): GradingCase => ({
  caseId: 'q1 agent',
  questionId: 'q1',
  agent: 'agent',
  question: 'Which countries have singers?',
  method: 'one SQL query written by agent',
  sql: 'SELECT country, count(*) FROM singer GROUP BY country',
  result: { columns: ['country', 'count(*)'], rows, rowCount: rows.length, truncated: false },
  ordered,
  reference: 'correct',
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judge-prompt-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('judge prompts', () => {
  it('the default templates use exactly their placeholders', () => {
    expect(() => checkJudgePrompt(PAIR)).not.toThrow();
    expect(() => checkJudgePrompt(GRADE)).not.toThrow();
  });

  it('a prompt missing a placeholder or using an unknown one is a DataError naming the file', () => {
    expect(() => checkJudgePrompt({ ...PAIR, text: '{{question}} {{reason_a}}' })).toThrow(DataError);
    expect(() => checkJudgePrompt({ ...PAIR, text: '{{question}} {{reason_a}}' })).toThrow(/prompts\/judge-pair\.md: the pairwise judge prompt never uses \{\{reason_b\}\}/);
    expect(() => checkJudgePrompt({ ...GRADE, text: 'x\n{{question}} {{method}} {{sql}} {{result}} {{golden_sql}}' })).toThrow(/prompts\/judge-answer\.md:2: unknown placeholder \{\{golden_sql\}\}/);
  });

  it('a `--- user ---` line splits system and user messages, as in agent prompts; without it one user message', async () => {
    const { judgeMessages } = await import('../../src/judge/prompt-template.js');
    expect(judgeMessages({ ...PAIR, text: 'Judge fairly.\n--- user ---\nQ: {{question}}' }, { question: 'Cost?' })).toEqual([
      { role: 'system', content: 'Judge fairly.' },
      { role: 'user', content: 'Q: Cost?' },
    ]);
    expect(judgeMessages({ ...PAIR, text: 'Q: {{question}}\n' }, { question: 'Cost?' })).toEqual([{ role: 'user', content: 'Q: Cost?' }]);
  });

  it('renders in one pass: inserted text is not substituted again', () => {
    expect(renderJudgePrompt({ ...PAIR, text: '{{ question }}|{{reason_a}}|{{reason_b}}' }, { question: '{{reason_a}}', reason_a: 'a', reason_b: 'b' })).toBe('{{reason_a}}|a|b');
  });

  it('a missing judge prompt file is a DataError naming it', async () => {
    await expect(loadJudgePrompt(join(dir, 'prompts/missing.md'), 'pairwise', dir)).rejects.toThrow(DataError);
    await expect(loadJudgePrompt(join(dir, 'prompts/missing.md'), 'pairwise', dir)).rejects.toThrow(/^prompts\/missing\.md: the pairwise judge prompt file is not found/);
  });

  it('loads and checks a prompt file', async () => {
    await writeFile(join(dir, 'pair.md'), DEFAULT_PAIRWISE_PROMPT);
    await expect(loadJudgePrompt(join(dir, 'pair.md'), 'pairwise', dir)).resolves.toEqual({ task: 'pairwise', file: 'pair.md', text: DEFAULT_PAIRWISE_PROMPT });
    await writeFile(join(dir, 'bad.md'), 'Question: {{question}}');
    await expect(loadJudgePrompt(join(dir, 'bad.md'), 'grading', dir)).rejects.toThrow(/bad\.md: the grading judge prompt never uses \{\{method\}\}, \{\{sql\}\}, \{\{result\}\}/);
  });
});

describe('judge requests', () => {
  it('a pairwise request has the texts in the order given and explicit sampling settings', () => {
    const r = pairwiseRequest(PAIR, SETTINGS, 'Cost of shipping?', 'First text.', 'Second text.');
    expect(r).toMatchObject({ model: 'gpt-4o-2024-08-06', temperature: 0, top_p: 1, max_tokens: 300, seed: 0 });
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const content = r.messages[1]!.content as string;
    expect(content.indexOf('First text.')).toBeLessThan(content.indexOf('Second text.'));
    const swapped = pairwiseRequest(PAIR, SETTINGS, 'Cost of shipping?', 'Second text.', 'First text.');
    expect(requestKey(swapped)).not.toBe(requestKey(r));
  });

  it('a changed sampling setting changes the key (a new judge is a new recording)', () => {
    const a = pairwiseRequest(PAIR, SETTINGS, 'q', 'a', 'b');
    const b = pairwiseRequest(PAIR, { ...SETTINGS, temperature: 0.2 }, 'q', 'a', 'b');
    expect(requestKey(a)).not.toBe(requestKey(b));
  });

  it('a grading request shows method, SQL and result; unordered rows are sorted, so the key does not depend on row order', () => {
    const one = gradingRequest(GRADE, SETTINGS, answer([['France', 4], ['Netherlands', 1]]));
    const two = gradingRequest(GRADE, SETTINGS, answer([['Netherlands', 1], ['France', 4]]));
    expect(requestKey(one)).toBe(requestKey(two));
    const ordered1 = gradingRequest(GRADE, SETTINGS, answer([['France', 4], ['Netherlands', 1]], true));
    const ordered2 = gradingRequest(GRADE, SETTINGS, answer([['Netherlands', 1], ['France', 4]], true));
    expect(requestKey(ordered1)).not.toBe(requestKey(ordered2));
    const content = one.messages[1]!.content as string;
    expect(content).toContain('SELECT country, count(*) FROM singer GROUP BY country');
    expect(content).toContain('| France | 4 |\n| Netherlands | 1 |\n(2 rows)');
  });

  it('showResult writes NULL, escapes pipes, and says how many rows were left out', () => {
    const rows = Array.from({ length: 25 }, (_, i) => [i, i === 0 ? null : `a|b${i}`]);
    const text = showResult({ columns: ['i', 's'], rows, rowCount: 1000, truncated: true }, true, 3);
    expect(text).toBe('| i | s |\n| --- | --- |\n| 0 | NULL |\n| 1 | a\\|b1 |\n| 2 | a\\|b2 |\n(1000 rows, first 3 shown, the query returned more rows than were kept)');
  });
});

describe('parseJudgeConfig', () => {
  it('fills explicit defaults and resolves paths', () => {
    expect(parseJudgeConfig({ model: 'gpt-4o', grading_prompt: 'prompts/judge-answer.md' }, '/repo')).toEqual({
      settings: { model: 'gpt-4o', temperature: 0, top_p: 1, max_tokens: 400, seed: 0 },
      recording: '/repo/recordings/judge',
      gradingPrompt: '/repo/prompts/judge-answer.md',
      includeInReport: false,
    });
    expect(parseJudgeConfig({}, '/repo')).toBeUndefined();
  });

  it('rejects bad values with the key named', () => {
    expect(() => parseJudgeConfig({ model: 'm', temperature: 'hot' }, '/r')).toThrow(ConfigError);
    expect(() => parseJudgeConfig({ model: 'm', temperature: 'hot' }, '/r')).toThrow(/judge\.temperature must be a number from 0 to 2, got "hot"/);
    expect(() => parseJudgeConfig({ temperature: 0 }, '/r')).toThrow(/judge\.model/);
    expect(() => parseJudgeConfig({ model: 'm', gate: true }, '/r')).toThrow(/unknown key 'judge\.gate'/);
    expect(() => parseJudgeConfig({ model: 'm', include_in_report: 'yes' }, '/r')).toThrow(/include_in_report/);
  });
});

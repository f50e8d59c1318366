import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSql } from '../../src/agent/extract-sql.js';
import { readSqlReply } from '../../src/agent/sql-reply.js';
import { replayAgent } from '../../src/pipeline/replay.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';

describe('extractSql keeps a statement whole across blank lines', () => {
  it.each([
    // chatgpt-sql spider predict.json item 799: the prompt ends in SELECT, the result starts with two newlines
    ['SELECT \n\nContinent, SUM(Population), AVG(LifeExpectancy)\nFROM country\nGROUP BY Continent', 'SELECT \n\nContinent, SUM(Population), AVG(LifeExpectancy)\nFROM country\nGROUP BY Continent'],
    ['SELECT name\n\nFROM singer\n\nWHERE age > 20', 'SELECT name\n\nFROM singer\n\nWHERE age > 20'],
    ['SELECT count(*) FROM singer WHERE country IN (\n\nSelect country FROM t)', 'SELECT count(*) FROM singer WHERE country IN (\n\nSelect country FROM t)'],
    ["SELECT 'a\n\nThis is text inside a string' FROM t", "SELECT 'a\n\nThis is text inside a string' FROM t"],
    ['SELECT a FROM t\n\nThis returns all a.', 'SELECT a FROM t'],
    ['SELECT a FROM t;\n\nExplanation: it reads a.', 'SELECT a FROM t'],
    ['SELECT a,\n\nName FROM t', 'SELECT a,\n\nName FROM t'],
    ['SELECT a FROM t WHERE\n\nName = 1', 'SELECT a FROM t WHERE\n\nName = 1'],
    ['Here:\r\n```sql\r\nSELECT 1\r\n```', 'SELECT 1'],
  ])('%j', (reply, sql) => {
    expect(extractSql(reply)).toBe(sql);
  });
});

describe('readSqlReply: the sql agent reply contract', () => {
  it.each([
    ['DECLINE: the database has no salaries.', { kind: 'declined', reason: 'the database has no salaries.' }],
    ['decline: not in the data', { kind: 'declined', reason: 'not in the data' }],
    ['**DECLINE:** no forecast data', { kind: 'declined', reason: 'no forecast data' }],
    ['\n  DECLINE:\nThe warehouse has no sales for next year.', { kind: 'declined', reason: 'The warehouse has no sales for next year.' }],
    ['```decline\nNo table holds salaries.\n```', { kind: 'declined', reason: 'No table holds salaries.' }],
    ['DECLINE:', { kind: 'declined', reason: '(no reason given)' }],
    ['ASK BACK: which year do you mean?', { kind: 'asked_back', question: 'which year do you mean?' }],
    ['ask_back: by region or by country?', { kind: 'asked_back', question: 'by region or by country?' }],
    ['```ask_back\nWhich currency?\n```', { kind: 'asked_back', question: 'Which currency?' }],
    ['```sql\nSELECT 1\n```', { kind: 'sql', sql: 'SELECT 1' }],
    ['SELECT decline FROM t', { kind: 'sql', sql: 'SELECT decline FROM t' }],
    // a decline line below the SQL is prose, not the reply form: the form is read from the first line only
    ['SELECT 1\n\nDECLINE: maybe', { kind: 'sql', sql: 'SELECT 1\n\nDECLINE: maybe' }],
    ['', { kind: 'none', why: 'empty reply' }],
    ['I cannot answer that.', { kind: 'none', why: 'no SQL found in the reply (and no DECLINE: or ASK BACK: line)' }],
  ])('%j', (reply, expected) => {
    expect(readSqlReply(reply)).toEqual(expected);
  });
});

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: two, question: 'How many singers, twice?', db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: twobad, question: Two statements the first of which fails., db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: forecast, question: What will sales be next year?, kind: decline}
  - {id: vague, question: Show the best ones., kind: decline}
  - {id: answerable, question: How many concerts?, db: concert_singer, golden_sql: SELECT count(*) FROM concert}
`;
const REPLIES: Record<string, string> = {
  count: 'SELECT count(*) FROM singer',
  two: 'SELECT count(*) FROM singer; SELECT 1',
  twobad: 'SELECT nope FROM singer; SELECT count(*) FROM singer',
  forecast: 'DECLINE: the database holds past sales only.',
  vague: 'ASK BACK: best by what measure?',
  answerable: 'DECLINE: I would rather not.',
};

describe('the reply forms score as declines and questions back, and spider grades several statements as the evaluator does', () => {
  let project: TempProject;
  const scored = new Map<string, Map<string, RunRecord>>();
  beforeAll(async () => {
    for (const match of ['relaxed', 'spider']) {
      project = tempProject(GOLDEN, `match: ${match}\n`);
      await project.record('a', REPLIES);
      const p = await project.open();
      try {
        scored.set(match, new Map((await replayAgent(p, 'a')).map((r) => [r.questionId, r])));
      } finally {
        await p.close();
        project.remove();
      }
    }
  });
  afterAll(() => project.remove());

  it('a DECLINE: reply is a correct decline on a decline question, and a decline (not an error) on an answer question', () => {
    const relaxed = scored.get('relaxed')!;
    expect(relaxed.get('forecast')).toMatchObject({ outcome: 'correct', text: 'the database holds past sales only.' });
    expect(relaxed.get('vague')).toMatchObject({ outcome: 'asked_back', text: 'best by what measure?' });
    expect(relaxed.get('answerable')).toMatchObject({ outcome: 'declined' });
  });

  it('several statements: an error in relaxed mode, the first statement graded in spider mode', () => {
    expect(scored.get('relaxed')!.get('two')?.outcome).toBe('error');
    expect(scored.get('spider')!.get('two')).toMatchObject({ outcome: 'correct', sql: 'SELECT count(*) FROM singer; SELECT 1' });
    expect(scored.get('spider')!.get('twobad')?.outcome).toBe('error');
    expect(scored.get('spider')!.get('count')?.outcome).toBe('correct');
  });
});

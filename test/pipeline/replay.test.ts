import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayAgent } from '../../src/pipeline/replay.js';
import { main } from '../../src/cli/index.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: names, question: List singer names., db: concert_singer, golden_sql: SELECT Name FROM singer}
  - {id: oldest, question: Names by age., db: concert_singer, golden_sql: SELECT Name FROM singer ORDER BY Age DESC}
  - {id: drop, question: Drop it., db: concert_singer, golden_sql: SELECT 1}
  - {id: insert, question: Insert., db: concert_singer, golden_sql: SELECT 1}
  - {id: attach, question: Attach., db: concert_singer, golden_sql: SELECT 1}
  - {id: pragma, question: Pragma., db: concert_singer, golden_sql: SELECT 1}
  - {id: two, question: Two statements., db: concert_singer, golden_sql: SELECT 1}
  - {id: slow, question: Forever., db: concert_singer, golden_sql: SELECT 1}
  - {id: huge, question: Millions., db: concert_singer, golden_sql: SELECT 1}
  - {id: empty, question: Empty reply., db: concert_singer, golden_sql: SELECT 1}
  - {id: big, question: A 64-bit integer., db: concert_singer, golden_sql: SELECT 9007199254740993}
  - {id: decline, question: What will sales be next year?, kind: decline}
`;

const REPLIES: Record<string, string> = {
  count: 'SELECT COUNT(*) FROM singer;',
  names: '```sql\nSELECT Name, Age FROM singer\n```',
  oldest: 'SELECT Name FROM singer ORDER BY Age ASC',
  drop: 'DROP TABLE singer',
  insert: "INSERT INTO singer (Name) VALUES ('x')",
  attach: "ATTACH DATABASE 'x.db' AS x",
  pragma: 'PRAGMA writable_schema = 1',
  two: 'SELECT 1; SELECT 2',
  slow: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
  huge: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT x FROM c',
  empty: '',
  big: 'SELECT 9007199254740993',
  decline: 'SELECT 42',
};

let project: TempProject;
let runs: Map<string, RunRecord>;
let dbHashBefore: string;
const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  project = tempProject(GOLDEN);
  await project.record('a', REPLIES);
  dbHashBefore = hash(join(project.dir, 'concert_singer.sqlite'));
  const p = await project.open();
  try {
    runs = new Map((await replayAgent(p, 'a')).map((r) => [r.questionId, r]));
  } finally {
    await p.close();
  }
});
afterAll(() => project.remove());

describe('replay and score on concert_singer', () => {
  it('scores matches and mismatches', () => {
    expect(runs.get('count')?.outcome).toBe('correct');
    expect(runs.get('names')?.outcome).toBe('correct'); // relaxed: projection of the wider result
    expect(runs.get('oldest')?.outcome).toBe('wrong_number'); // ordered golden, reversed order
    expect(runs.get('decline')?.outcome).toBe('wrong_number'); // a number on a decline question
    expect(runs.get('count')?.keys[0]).toMatch(/^sha256:/);
    expect(runs.get('count')?.promptTokens).toBe(100);
  });
  it.each(['drop', 'insert', 'attach', 'pragma', 'two'])('refuses %s as an error and leaves the warehouse unchanged', (id) => {
    expect(runs.get(id)?.outcome).toBe('error');
    expect(runs.get(id)?.detail).toMatch(/Refused|refused|read-only|one statement/i);
    expect(hash(join(project.dir, 'concert_singer.sqlite'))).toBe(dbHashBefore);
  });
  it('stops a statement past the time limit, and the other runs go on', () => {
    expect(runs.get('slow')?.outcome).toBe('error');
    expect(runs.get('slow')?.detail).toMatch(/time limit/);
    expect(runs.get('count')?.outcome).toBe('correct');
  });
  it('caps a result of millions of rows and flags it truncated', () => {
    expect(runs.get('huge')?.truncated).toBe(true);
    expect(runs.get('huge')?.rowCount).toBe(10_000);
  });
  it('reports an empty reply as an error', () => {
    expect(runs.get('empty')?.outcome).toBe('error');
    expect(runs.get('empty')?.detail).toBe('empty reply');
  });
  it('returns a 64-bit integer exactly', () => {
    expect(runs.get('big')?.outcome).toBe('correct');
    expect(runs.get('big')?.preview?.rows[0]?.[0]).toBe('9007199254740993');
  });
});

describe('replaygate score', () => {
  it('fails with MissingRecording, showing the diff, after a one-character prompt edit; the recording is untouched', async () => {
    const prompt = join(project.dir, 'prompts', 'sql.md');
    const calls = join(project.dir, 'recordings', 'a', 'calls', 'count.jsonl');
    const before = readFileSync(calls);
    const original = readFileSync(prompt, 'utf8');
    writeFileSync(prompt, original.replace('one SQLite', 'one SQLite!'));
    const err: string[] = [];
    const code = await main(['score', '-c', project.config, '-a', 'a', '-q', 'count', '--no-progress'], { stdout: () => {}, stderr: (s) => err.push(s), isTTY: false });
    writeFileSync(prompt, original);
    expect(code).toBe(1);
    const text = err.join('');
    expect(text).toMatch(/MissingRecording: recording 'a' has no reply for question 'count', seed 0, call 0/);
    expect(text).toMatch(/^-messages\[0\]\.content: "Write one SQLite query\."$/m);
    expect(text).toMatch(/^\+messages\[0\]\.content: "Write one SQLite! query\."$/m);
    expect(readFileSync(calls).equals(before)).toBe(true);
  });
  it('writes JSON and Markdown reports', async () => {
    const out: string[] = [];
    const code = await main(['score', '-c', project.config, '-a', 'a', '-q', 'count,names', '--json', 'r.json', '--markdown', 'r.md'], { cwd: project.dir, stdout: (s) => out.push(s), stderr: () => {}, isTTY: false });
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(project.dir, 'r.json'), 'utf8'));
    expect(report.schemaVersion).toBe(1);
    expect(report.scorecards[0]).toMatchObject({ agent: 'a', n: 2, correct: 2 });
    expect(readFileSync(join(project.dir, 'r.md'), 'utf8')).toContain('<!-- replaygate-report -->');
    expect(out.join('')).toMatch(/accuracy \(95% Wilson interval\)\s+1\.00 \(0\.34 to 1\.00\)/);
  });
});

describe('bad recordings', () => {
  it('names the line of a recording line that is not JSON', async () => {
    const calls = join(project.dir, 'recordings', 'a', 'calls', 'names.jsonl');
    const good = readFileSync(calls);
    const n = good.toString('utf8').split('\n').length;
    appendFileSync(calls, '{not json\n');
    const err: string[] = [];
    const code = await main(['score', '-c', project.config, '-a', 'a'], { stdout: () => {}, stderr: (s) => err.push(s), isTTY: false });
    writeFileSync(calls, good);
    expect(code).toBe(2);
    expect(err.join('')).toMatch(new RegExp(`calls/names\\.jsonl:${n}: not valid JSON`));
  });
  it('names the line whose key does not match its request', async () => {
    const calls = join(project.dir, 'recordings', 'a', 'calls', 'names.jsonl');
    const good = readFileSync(calls, 'utf8');
    const lines = good.split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"question_id"'));
    const edited = JSON.parse(lines[at]!);
    edited.request.model += ' (edited)';
    lines[at] = JSON.stringify(edited);
    writeFileSync(calls, lines.join('\n'));
    const err: string[] = [];
    const code = await main(['score', '-c', project.config, '-a', 'a'], { stdout: () => {}, stderr: (s) => err.push(s), isTTY: false });
    writeFileSync(calls, good);
    expect(code).toBe(2);
    expect(err.join('')).toMatch(new RegExp(`calls/names\\.jsonl:${at + 1}: key sha256:[0-9a-f]+ does not match its request`));
  });
});

describe('conflicting recording lines', () => {
  it('names both lines when one request is recorded twice with different replies', async () => {
    const calls = join(project.dir, 'recordings', 'a', 'calls', 'count.jsonl');
    const good = readFileSync(calls, 'utf8');
    const lines = good.trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"question_id"'));
    const first = JSON.parse(lines[at]!);
    appendFileSync(calls, `${JSON.stringify({ ...first, reply: { content: 'SELECT 2' } })}\n`);
    const err: string[] = [];
    const code = await main(['score', '-c', project.config, '-a', 'a'], { stdout: () => {}, stderr: (s) => err.push(s), isTTY: false });
    writeFileSync(calls, good);
    expect(code).toBe(2);
    const n = lines.length + 1;
    expect(err.join('')).toMatch(new RegExp(`calls/count\\.jsonl:${n}: lines ${at + 1} and ${n} record the same request for question 'count', seed 0, call 0 with different replies`));
  });
  it('accepts an identical duplicate line', async () => {
    const calls = join(project.dir, 'recordings', 'a', 'calls', 'count.jsonl');
    const good = readFileSync(calls, 'utf8');
    appendFileSync(calls, `${good.trimEnd().split('\n').at(-1)}\n`);
    const code = await main(['score', '-c', project.config, '-a', 'a', '-q', 'count'], { stdout: () => {}, stderr: () => {}, isTTY: false });
    writeFileSync(calls, good);
    expect(code).toBe(0);
  });
});

describe('oversized values', () => {
  it('fails a statement that returns one huge value, and the other runs go on', async () => {
    const big = tempProject(`questions:
  - {id: blob, question: A blob., db: concert_singer, golden_sql: SELECT 1}
  - {id: count, question: How many singers?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
`);
    try {
      await big.record('a', { blob: 'SELECT randomblob(50000000)', count: 'SELECT count(*) FROM singer' });
      const p = await big.open();
      try {
        const runs = new Map((await replayAgent(p, 'a')).map((r) => [r.questionId, r]));
        expect(runs.get('blob')?.outcome).toBe('error');
        expect(runs.get('blob')?.detail).toMatch(/values over 1024 KiB are refused/);
        expect(runs.get('count')?.outcome).toBe('correct');
      } finally {
        await p.close();
      }
    } finally {
      big.remove();
    }
  });
});

describe('results past max_rows', () => {
  it('never calls two truncated results a match, and a truncated one never matches an untruncated one', async () => {
    const big = tempProject(
      `questions:
  - {id: both, question: Many rows., db: concert_singer, golden_sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT x FROM c"}
  - {id: one, question: Many rows too., db: concert_singer, golden_sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT x FROM c"}
`,
    );
    try {
      writeFileSync(big.config, readFileSync(big.config, 'utf8').replace('  timeout_ms: 2000\n', '  timeout_ms: 2000\n  max_rows: 20\n'));
      await big.record('a', {
        both: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40) SELECT x FROM c',
        one: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20) SELECT x FROM c',
      });
      const p = await big.open();
      try {
        const runs = new Map((await replayAgent(p, 'a')).map((r) => [r.questionId, r]));
        expect(runs.get('both')).toMatchObject({ outcome: 'error', truncated: true });
        expect(runs.get('both')?.detail).toMatch(/undetermined/);
        expect(runs.get('one')).toMatchObject({ outcome: 'wrong_number', truncated: false, rowCount: 20 });
      } finally {
        await p.close();
      }
    } finally {
      big.remove();
    }
  });
});

describe('golden SQL that fails', () => {
  // Golden queries run beside the runs (both cores busy); the refusal is the same as when they ran first.
  it('is refused naming the question, and takes precedence over a damaged recording the runs hit', async () => {
    const broken = tempProject(
      `questions:
  - {id: ok, question: How many singers?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: bad, question: From nowhere., db: concert_singer, golden_sql: SELECT x FROM no_such_table}
`,
    );
    try {
      await broken.record('a', { ok: 'SELECT count(*) FROM singer', bad: 'SELECT 1' });
      const refusal = /1 golden question\(s\) cannot be scored because their golden SQL fails on this warehouse:\n {2}bad \(.*q\.yml:3\): golden SQL failed: no such table: no_such_table\nFix the golden SQL/;
      let p = await broken.open();
      try {
        await expect(replayAgent(p, 'a')).rejects.toThrow(refusal);
        const runs = await replayAgent(p, 'a', { allowBrokenGolden: true });
        expect(runs.map((r) => [r.questionId, r.outcome])).toEqual([
          ['ok', 'correct'],
          ['bad', 'error'],
        ]);
      } finally {
        await p.close();
      }
      const calls = join(broken.dir, 'recordings', 'a', 'calls', 'ok.jsonl');
      writeFileSync(calls, `${readFileSync(calls, 'utf8')}{not json\n`);
      p = await broken.open();
      try {
        await expect(replayAgent(p, 'a')).rejects.toThrow(refusal);
        await expect(replayAgent(p, 'a', { allowBrokenGolden: true })).rejects.toThrow(/ok\.jsonl/);
      } finally {
        await p.close();
      }
    } finally {
      broken.remove();
    }
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';

const SPIDER = join(import.meta.dirname, '../../../shared/data/spider/database');
const dir = mkdtempSync(join(tmpdir(), 'replaygate-migdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check --migration on a warehouse with several databases', () => {
  for (const db of ['concert_singer', 'pets_1']) copyFileSync(join(SPIDER, db, `${db}.sqlite`), join(dir, `${db}.sqlite`));
  mkdirSync(join(dir, 'golden'));
  writeFileSync(
    join(dir, 'golden', 'q.yml'),
    '- {id: names, question: Singer names?, db: concert_singer, golden_sql: SELECT Name FROM singer}\n- {id: pets, question: How many pets?, db: pets_1, golden_sql: SELECT count(*) FROM Pets}\n',
  );
  writeFileSync(join(dir, 'replaygate.yml'), 'warehouse:\n  databases:\n    concert_singer: concert_singer.sqlite\n    pets_1: pets_1.sqlite\ngolden: golden\n');
  writeFileSync(join(dir, 'rename.sql'), 'ALTER TABLE singer RENAME COLUMN Name TO FullName;\n');
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { cwd: dir, stdout: (s) => out.push(s), stderr: (s) => err.push(s), isTTY: false });
    return { code, out: out.join(''), err: err.join('') };
  };
  it('migrates only the database named by --database and reports what breaks', async () => {
    const r = await run('check', '--migration', 'rename.sql', '--database', 'concert_singer');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/golden SQL: 1 of 2 fail/);
    expect(r.out).toMatch(/names/);
  });
  it('without --database, a migration that fits one database fails on the others (exit 2, named)', async () => {
    const r = await run('check', '--migration', 'rename.sql');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/rename\.sql/);
  });
  it('names an unknown --database', async () => {
    const r = await run('check', '--migration', 'rename.sql', '--database', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--database: no database 'nope'/);
  });
});

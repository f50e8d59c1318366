import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/confidence/checks.js';
import { WarehouseProfile } from '../../src/confidence/warehouse-profile.js';
import type { Sample } from '../../src/confidence/types.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import { spiderWarehouse } from './spider-fixture.js';

let spider: Warehouse;
let profile: WarehouseProfile;
let codes: Warehouse;
let codesProfile: WarehouseProfile;
let dir: string;

beforeAll(() => {
  spider = spiderWarehouse(['concert_singer']);
  profile = new WarehouseProfile(spider.engine('concert_singer'));
  dir = mkdtempSync(join(tmpdir(), 'replaygate-confidence-'));
  const file = join(dir, 'codes.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE survey (id INTEGER PRIMARY KEY, age INTEGER, income REAL, code TEXT, year INTEGER)');
  const insert = db.prepare('INSERT INTO survey (id, age, income, code, year) VALUES (?, ?, ?, ?, ?)');
  for (let i = 0; i < 1000; i += 1) {
    // age: −1 in 1% of rows (a stand-in); income: 99999999 in 0.4% (below 0.5%: not a stand-in);
    // year: 9999 in 2% of rows, other years near 2000 (not "much smaller" than 9999: not a stand-in)
    insert.run(i, i % 100 === 0 ? -1 : 20 + (i % 50), i % 250 === 0 ? 99999999 : 1000 + i, i % 10 === 0 ? '-1' : 'a', i % 50 === 0 ? 9999 : 1990 + (i % 30));
  }
  db.close();
  codes = openWarehouse(new Map([['codes', file]]), { hosts: 1 });
  codesProfile = new WarehouseProfile(codes.engine('codes'));
});

afterAll(async () => {
  await spider.close();
  await codes.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(sql: string, extra: Partial<Sample> = {}, p: WarehouseProfile = profile): Promise<Awaited<ReturnType<typeof checkAnswer>>> {
  let result: Sample['result'];
  try {
    result = await p.engine.query(sql);
  } catch {
    result = undefined;
  }
  return checkAnswer({ label: '0', sql, ...(result !== undefined ? { result } : {}), ...extra }, { question: 'How many singers are there?' }, p);
}

describe('deterministic checks on concert_singer (Spider dev)', () => {
  it('a correct gold answer fires nothing', async () => {
    const c = await run('SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id');
    expect([c.missingTable.status, c.badJoin.status, c.standIn.status, c.uncitedNumber.status, c.emptyResult.status]).toEqual([
      'passed',
      'passed',
      'passed',
      'unmeasured',
      'passed',
    ]);
    // concert.Stadium_ID is TEXT, stadium.Stadium_ID INT: keys compare as numbers
    expect(c.gJoin).toBe(1);
    expect(c.gTab).toBe(1);
  });

  it('missing table: fired with the name; CTE names are not tables', async () => {
    const c = await run('SELECT count(*) FROM singers');
    expect(c.missingTable).toEqual({ check: 'missing_table', status: 'fired', detail: 'table "singers" does not exist in the warehouse' });
    expect(c.gTab).toBe(0);
    expect((await run('WITH s AS (SELECT * FROM singer) SELECT count(*) FROM s')).missingTable.status).toBe('passed');
  });

  it('bad join: key overlap below 0.85 in the better direction, with ρ in the detail', async () => {
    const c = await run('SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.capacity');
    expect(c.badJoin.status).toBe('fired');
    expect(c.badJoin.detail).toBe('key overlap below 0.85: T1.stadium_id = T2.capacity (ρ = 0.00)');
    expect(c.gJoin).toBe(0);
  });

  it('SQL the parser cannot read: the SQL checks are unmeasured with the reason, nothing throws', async () => {
    const c = await run('SELECT name FROM singer WHERE YEAR(x) >= 2014 ORDER BY 1 WHERE age');
    expect(c.missingTable.status).toBe('unmeasured');
    expect(c.missingTable.detail).toMatch(/SQL parser could not read the statement/);
    expect(c.badJoin.status).toBe('unmeasured');
    expect(c.standIn.status).toBe('unmeasured');
    expect(c.gTab).toBeUndefined();
  });

  it('empty result fires; no result leaves the result checks unmeasured', async () => {
    expect((await run("SELECT name FROM singer WHERE country = 'Atlantis'")).emptyResult).toMatchObject({ status: 'fired' });
    const none = await checkAnswer({ label: '0', sql: 'SELECT nope FROM singer', error: 'no such column: nope' }, { question: 'q' }, profile);
    expect(none.emptyResult.status).toBe('unmeasured');
    expect(none.standIn).toMatchObject({ status: 'unmeasured', detail: 'the answer has no result' });
  });

  it('uncited number: measured only with written text', async () => {
    const c = await run('SELECT count(*) FROM singer', { text: 'There are 6 singers; 7 of them are French.' });
    expect(c.uncitedNumber).toEqual({ check: 'uncited_number', status: 'fired', detail: '1 number in the written answer match no returned cell: 7' });
    expect(c.citedNumbers).toBe(1);
  });
});

describe('stand-in values (paper §3.2: a code covering ≥ 0.5% of an otherwise non-negative or much smaller column)', () => {
  it('profiles −1 in an otherwise non-negative INTEGER column, not below 0.5%, not in TEXT, not when the rest is not much smaller', async () => {
    expect(await codesProfile.standIn({ table: 'survey', column: 'age' })).toEqual({ table: 'survey', column: 'age', code: -1, share: 0.01, origin: 'profiled' });
    expect(await codesProfile.standIn({ table: 'survey', column: 'income' })).toBeUndefined();
    expect(await codesProfile.standIn({ table: 'survey', column: 'code' })).toBeUndefined();
    expect(await codesProfile.standIn({ table: 'survey', column: 'year' })).toBeUndefined();
  });

  it('fires when a returned column carries its stand-in code, passes when the code is not returned', async () => {
    const hit = await run('SELECT id, age FROM survey WHERE id < 3', {}, codesProfile);
    expect(hit.standIn).toEqual({ check: 'stand_in', status: 'fired', detail: 'column 2 "age" (survey.age) returns the stand-in code -1 in 1 row' });
    expect(hit.gVal).toBe(0);
    const miss = await run('SELECT id, age FROM survey WHERE id BETWEEN 1 AND 5', {}, codesProfile);
    expect(miss.standIn).toMatchObject({ status: 'passed', detail: '1 returned column with a stand-in code; none returned' });
    expect(miss.gVal).toBe(1);
    expect((await run('SELECT avg(age) FROM survey', {}, codesProfile)).standIn).toMatchObject({ status: 'passed', detail: 'no returned column carries a stand-in code' });
  });

  it('a declared stand-in takes precedence over profiling', async () => {
    const declared = codesProfile.withDeclared([{ table: 'survey', column: 'income', code: 99999999, share: 1, origin: 'declared' }]);
    expect((await run('SELECT income FROM survey WHERE id = 0', {}, declared)).standIn.status).toBe('fired');
  });
});

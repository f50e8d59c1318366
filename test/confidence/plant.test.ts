import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOrderedSql } from '../../src/matching/index.js';
import {
  plantErrors,
  plantFakeTable,
  plantIntentFlip,
  plantPartialAnswer,
  plantTimeWindow,
  plantWrongAggregate,
  plantWrongNumber,
  type PlantCandidate,
} from '../../src/confidence/plant.js';
import type { PlantReport } from '../../src/confidence/plant-report.js';
import { WarehouseProfile } from '../../src/confidence/warehouse-profile.js';
import type { Sample } from '../../src/confidence/types.js';
import type { Warehouse } from '../../src/warehouse/index.js';
import type { TableInfo } from '../../src/warehouse/types.js';
import { result } from './helpers.js';
import { SPIDER_DIR, spiderWarehouse } from './spider-fixture.js';

const SINGER: TableInfo[] = [
  { name: 'singer', columns: [{ name: 'Name', type: 'text', primaryKey: false }, { name: 'Age', type: 'int', primaryKey: false }], foreignKeys: [] },
];

describe('SQL rewrites (Appendix B), through the parser tree', () => {
  it('fake table keeps the old name as an alias so the statement still reads', () => {
    expect(plantFakeTable('SELECT singer.name FROM singer', SINGER)).toEqual({
      ok: true,
      sql: 'SELECT "singer"."name" FROM "singer_archive" AS "singer"',
      change: 'table singer → singer_archive',
    });
  });

  it('wrong time window shifts a year or a date in a filter by one year', () => {
    expect(plantTimeWindow('SELECT count(*) FROM concert WHERE year = 2014')).toMatchObject({ ok: true, change: 'year 2014 → 2015 in a filter' });
    expect(plantTimeWindow("SELECT count(*) FROM t WHERE d >= '2014-01-01'")).toMatchObject({ ok: true, change: "date '2014-01-01' → '2015-01-01' in a filter" });
    expect(plantTimeWindow('SELECT count(*) FROM singer WHERE age > 30')).toEqual({ ok: false, skip: 'no year or date in a filter' });
  });

  it('wrong aggregate: SUM ↔ AVG, COUNT ↔ COUNT(DISTINCT)', () => {
    expect(plantWrongAggregate('SELECT avg(age) FROM singer')).toMatchObject({ ok: true, sql: 'SELECT SUM("age") FROM "singer"', change: 'AVG → SUM' });
    expect(plantWrongAggregate('SELECT count(country) FROM singer')).toMatchObject({ ok: true, sql: 'SELECT COUNT(DISTINCT "country") FROM "singer"' });
    expect(plantWrongAggregate('SELECT count(*) FROM singer')).toMatchObject({ ok: false });
  });

  it('intent flip: ORDER BY … LIMIT direction first, then MAX ↔ MIN, then a comparison', () => {
    expect(plantIntentFlip('SELECT name FROM singer ORDER BY age DESC LIMIT 1')).toMatchObject({ ok: true, sql: 'SELECT "name" FROM "singer" ORDER BY "age" ASC LIMIT 1' });
    expect(plantIntentFlip('SELECT max(age) FROM singer')).toMatchObject({ ok: true, change: 'MAX → MIN' });
    expect(plantIntentFlip('SELECT name FROM singer WHERE age >= 30')).toMatchObject({ ok: true, change: 'comparison >= → <=' });
  });

  it('partial answer: half the rows, or the last column when there is one row', () => {
    expect(plantPartialAnswer('SELECT name, age FROM singer', 6)).toMatchObject({ ok: true, sql: 'SELECT "name", "age" FROM "singer" LIMIT 3' });
    expect(plantPartialAnswer('SELECT name, age FROM singer WHERE age = 52', 1)).toMatchObject({ ok: true, change: 'last column (age) left out' });
    expect(plantPartialAnswer('SELECT count(*) FROM singer', 1)).toMatchObject({ ok: false });
  });

  it('wrong number: a synthesised written answer when there is none, then a value in no returned row', () => {
    const s: Sample = { label: '0', sql: 'SELECT count(*) FROM singer', result: result([[6]]) };
    expect(plantWrongNumber(s, 'How many singers?')).toEqual({
      ok: true,
      text: 'The answer is 7.',
      change: 'written answer "The answer is 6." (synthesised) → "The answer is 7."',
    });
  });
});

/** Spider dev gold answers of a few databases, each as five agreeing samples: answers labelled correct. */
async function goldCandidates(warehouse: Warehouse, dbs: readonly string[]): Promise<PlantCandidate[]> {
  const lines = readFileSync(`${SPIDER_DIR}dev_gold.sql`, 'utf8').trim().split('\n');
  const questions = JSON.parse(readFileSync(`${SPIDER_DIR}dev.json`, 'utf8')) as { question: string }[];
  const profiles = new Map(dbs.map((d) => [d, new WarehouseProfile(warehouse.engine(d))]));
  const out: PlantCandidate[] = [];
  for (const [i, line] of lines.entries()) {
    const [sql, db] = line.split('\t') as [string, string];
    const profile = profiles.get(db);
    if (profile === undefined) continue;
    const r = await profile.engine.query(sql);
    const shown = { columns: r.columns, rows: r.rows.slice(0, 100), rowCount: r.rowCount, truncated: r.truncated };
    const samples: Sample[] = Array.from({ length: 5 }, (_, k) => ({ label: String(k), sql, result: shown }));
    out.push({ question: { questionId: `dev-${i}`, question: questions[i]?.question ?? '', db, samples }, ordered: isOrderedSql(sql), profile });
  }
  return out;
}

describe('planted errors on Spider dev gold answers (paper §5.3)', () => {
  let warehouse: Warehouse;
  let report: PlantReport;

  beforeAll(async () => {
    warehouse = spiderWarehouse(['concert_singer', 'pets_1', 'car_1', 'dog_kennels', 'employee_hire_evaluation', 'orchestra', 'world_1']);
    const candidates = await goldCandidates(warehouse, ['concert_singer', 'pets_1', 'car_1', 'dog_kennels', 'employee_hire_evaluation', 'orchestra', 'world_1']);
    report = await plantErrors(candidates, { perKind: 60, seed: 1 });
  }, 120_000);

  afterAll(async () => {
    await warehouse.close();
  });

  it('every planted fake table, bad join and stand-in is caught by its own check (100%)', () => {
    for (const kind of ['fake_table', 'bad_join', 'stand_in'] as const) {
      const k = report.kinds.find((x) => x.kind === kind);
      expect(k?.effective, kind).toBe(60);
      expect(k?.ownCheckFired, kind).toBe(k?.effective);
      // and the agreement-first gate never passes them (a veto caps at 0.59)
      expect(k?.rules['agreement-first']?.withheld, kind).toBe(k?.effective);
    }
  });

  it('a planted wrong number is caught by the uncited-number check and never passed', () => {
    const k = report.kinds.find((x) => x.kind === 'wrong_number');
    expect(k?.ownCheckFired).toBe(k?.effective);
    expect(k?.rules['agreement-first']?.notPassed).toBe(k?.effective);
  });

  it('judge-checked kinds report their own check as unmeasured, and every control reproduces', () => {
    for (const kind of ['wrong_time_window', 'wrong_aggregate', 'intent_flip', 'partial_answer'] as const) {
      const k = report.kinds.find((x) => x.kind === kind);
      expect(k?.ownCheck).toBe('judge');
      expect(k?.ownCheckFired).toBeNull();
    }
    expect(report.controls.reproduced).toBe(report.controls.tried);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idFromPattern, readPredictions } from '../../src/importers/predictions.js';
import { readSpiderDev } from '../../src/importers/spider-golden.js';

const DATA = join(import.meta.dirname, '../../../shared/data');

describe('prediction importers on the published files', () => {
  it('reads DIN-SQL CSV aligned with Spider dev', async () => {
    const p = await readPredictions(join(DATA, 'din-sql/GPT4_results/DIN-SQL.csv'), 'din-sql-csv');
    const dev = await readSpiderDev(join(DATA, 'spider/dev.json'), join(DATA, 'spider/dev_gold.sql'));
    expect(p).toHaveLength(1034);
    expect(p[0]).toMatchObject({ sql: 'SELECT COUNT(*) FROM singer', db: 'concert_singer', question: 'How many singers do we have?' });
    expect(p.every((x, i) => x.db === dev[i]?.db)).toBe(true);
  });
  it('reads SQL<TAB>db lines and plain lines', async () => {
    const local = await readPredictions(join(DATA, 'spider-subset-localmodels/output/Few Shot Output/prediksi_qwen2.5_7b_20251207_231432.txt'), 'lines');
    expect(local).toHaveLength(195);
    expect(local[0]?.db).toBe('concert_singer');
    const dail = await readPredictions(join(DATA, 'dail-sql/results/DAIL-SQL+GPT-4+self-consistency.txt'), 'lines');
    expect(dail).toHaveLength(1034);
    expect(dail[0]?.sql).toMatch(/^SELECT/); // the file's first line has leading spaces
  });
  it('reads chatgpt-sql JSON, re-attaching the SELECT that ends the prompt', async () => {
    const p = await readPredictions(join(DATA, 'chatgpt-sql/spider/predict.json'), 'chatgpt-json');
    expect(p[0]).toMatchObject({ sql: 'SELECT COUNT(*) FROM singer', db: 'concert_singer' });
  });
  it('maps indices to ids', () => {
    expect(idFromPattern('spider-dev-{i:4}', 42)).toBe('spider-dev-0042');
    expect(idFromPattern('q{n}', 0)).toBe('q1');
  });
});

describe('the lines format keeps the SQL whole', () => {
  const write = (text: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rg-lines-'));
    const file = join(dir, 'p.txt');
    writeFileSync(file, text);
    return file;
  };
  const databases = new Set(['concert_singer', 'pets_1']);
  it('a TAB inside SQL is SQL; only a trailing TAB db_id naming a known database separates', async () => {
    const p = await readPredictions(write('SELECT a\tFROM t\tconcert_singer\nSELECT a FROM\tsinger\nSELECT 1\tpets_1\n'), 'lines', { databases });
    expect(p.map((x) => [x.sql, x.db])).toEqual([
      ['SELECT a\tFROM t', 'concert_singer'],
      ['SELECT a FROM\tsinger', undefined],
      ['SELECT 1', 'pets_1'],
    ]);
  });
  it('a file whose every line ends in an unknown database name is refused, naming it', async () => {
    await expect(readPredictions(write('SELECT 1\twta_1\nSELECT 2\twta_1\n'), 'lines', { databases })).rejects.toThrow(/p\.txt:1: every line ends with TAB and a name \(wta_1/);
  });
  it.each([['an empty file', ''], ['only blank lines', '\n\n  \n'], ['an empty JSON list', '[]']])('%s is an error, not one empty prediction', async (_, text) => {
    await expect(readPredictions(write(text), text.startsWith('[') ? 'chatgpt-json' : 'lines')).rejects.toThrow(/holds no predictions/);
  });
  it('an empty CSV (header only) is an error', async () => {
    await expect(readPredictions(write('NLQ,PREDICTED SQL,GOLD SQL,DATABASE\n'), 'din-sql-csv')).rejects.toThrow(/holds no predictions/);
  });
});

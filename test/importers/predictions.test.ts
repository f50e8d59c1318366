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

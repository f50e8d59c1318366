import { existsSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GoldenQuestion } from '../../src/golden/types.js';
import { genparseImportItems, readGenparseSamples } from '../../src/importers/genparse.js';
import { DataError } from '../../src/util/errors.js';

const SHARED = join(process.cwd(), '..', 'shared', 'data', 'genparse-samples');
const golden = (id: string, db: string, question: string): GoldenQuestion => ({
  id, db, question, split: 'dev', kind: 'answer', goldenSql: 'SELECT 1', ordered: false, set: false, source: 'test',
});

describe('genparse importer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genparse-'));
  const file = join(dir, 'samples.jsonl');
  writeFileSync(
    file,
    [
      { db_name: 'pets_1', question: 'How many pets?', particles: [{ index: 1, text: 'SELECT 2;' }, { index: 0, text: ' SELECT 1; ' }] },
      { db_name: 'pets_1', question: 'Oldest  pet?', particles: [{ tokens: ['SELECT', ' max', '(age)', '▪'], weight: 0 }, { tokens: ['SELECT', ' 1'] }] },
      { db_name: 'other', question: 'Unknown?', particles: [{ index: 0, text: 'SELECT 3' }] },
    ].map((o) => JSON.stringify(o)).join('\n') + '\n',
  );

  it('puts sampling particles in draw order and strips the SMC end marker', async () => {
    const q = await readGenparseSamples(file);
    expect(q.map((x) => x.method)).toEqual(['sampling', 'smc', 'sampling']);
    expect(q[0]?.samples).toEqual(['SELECT 1;', 'SELECT 2;']);
    expect(q[1]?.samples).toEqual(['SELECT max(age)', 'SELECT 1']);
  });

  it('matches golden questions by database and text; sample k is seed k', async () => {
    const q = await readGenparseSamples(file);
    const g = [golden('spider-dev-0002', 'pets_1', 'How many pets?'), golden('spider-dev-0003', 'pets_1', 'Oldest pet?')];
    const { items, unmatched } = genparseImportItems(q, g, file);
    expect(items.map((i) => [i.questionId, i.seed, i.content])).toEqual([
      ['spider-dev-0002', 0, 'SELECT 1;'],
      ['spider-dev-0002', 1, 'SELECT 2;'],
      ['spider-dev-0003', 0, 'SELECT max(age)'],
      ['spider-dev-0003', 1, 'SELECT 1'],
    ]);
    expect(unmatched).toEqual([3]);
  });

  it('bad lines are DataErrors naming the line', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), '{"db_name":"a","question":"q","particles":[]}\n');
    await expect(readGenparseSamples(join(dir, 'bad.jsonl'))).rejects.toThrow(DataError);
    await expect(readGenparseSamples(join(dir, 'bad.jsonl'))).rejects.toThrow(/bad\.jsonl:1: expected a non-empty `particles` list/);
  });

  it.runIf(existsSync(SHARED))('reads the real files: 656 questions × 10 samples each', async () => {
    const sampling = await readGenparseSamples(join(SHARED, 'llama-3-sampling-n10-1000.jsonl'));
    const smc = await readGenparseSamples(join(SHARED, 'llama-3-smc-standard-p10-b10-1000-schema.jsonl'));
    expect(sampling).toHaveLength(656);
    expect(smc).toHaveLength(656);
    expect(sampling.every((q) => q.samples.length === 10 && q.method === 'sampling')).toBe(true);
    expect(smc.every((q) => q.samples.length === 10 && q.method === 'smc')).toBe(true);
    expect(sampling[0]?.samples[0]).toBe('SELECT count(*) FROM singer;');
  });
});

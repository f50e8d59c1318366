import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { readManifest } from '../../src/recording/manifest.js';
import { tempProject } from '../helpers/temp-project.js';

const project = tempProject(`questions:
  - {id: q0, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: q1, question: How many concerts are there?, db: concert_singer, golden_sql: SELECT count(*) FROM concert}
`);
afterAll(() => project.remove());

const run = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { cwd: project.dir, stdout: (s) => out.push(s), stderr: (s) => err.push(s), isTTY: false });
  return { code, out: out.join(''), err: err.join('') };
};

describe('import predictions', () => {
  writeFileSync(join(project.dir, 'seed0.txt'), 'SELECT count(*) FROM singer\tconcert_singer\nSELECT count(*) FROM stadium\tconcert_singer\n');
  writeFileSync(join(project.dir, 'seed1.txt'), 'SELECT count(*) FROM singer\tconcert_singer\nSELECT count(*) FROM concert\tconcert_singer\n');
  it('writes one seed, then appends another seed from a second file', async () => {
    expect((await run('import', 'predictions', 'seed0.txt', '-a', 'a', '--ids', 'q{i}')).code).toBe(0);
    const again = await run('import', 'predictions', 'seed1.txt', '-a', 'a', '--ids', 'q{i}', '--seed', '1');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/exists; pass --append to add seeds or questions to it, or --force to replace it/);
    expect((await run('import', 'predictions', 'seed1.txt', '-a', 'a', '--ids', 'q{i}', '--seed', '1', '--append')).code).toBe(0);
    expect((await readManifest(join(project.dir, 'recordings', 'a'))).seeds).toEqual([0, 1]);
    const scored = await run('score', '-a', 'a', '--seeds', '2', '--json', 'out/r.json');
    expect(scored.code).toBe(0);
    expect(scored.out).toMatch(/correct\s+3 of 4/);
  });
  it('refuses to append a question and seed that are already recorded, writing nothing', async () => {
    const r = await run('import', 'predictions', 'seed1.txt', '-a', 'a', '--ids', 'q{i}', '--seed', '1', '--append');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/seed1\.txt:1: question 'q0' seed 1 is already in recordings\/a/);
  });
  it('refuses to append after the prompt changed, and names every seed\'s source', async () => {
    const manifest = await readManifest(join(project.dir, 'recordings', 'a'));
    expect(manifest.source).toBe('seed0.txt; seed 1: seed1.txt');
    const prompt = join(project.dir, 'prompts', 'sql.md');
    const original = readFileSync(prompt, 'utf8');
    writeFileSync(prompt, `${original}Be brief.\n`);
    writeFileSync(join(project.dir, 'seed2.txt'), 'SELECT 1\tconcert_singer\n');
    const r = await run('import', 'predictions', 'seed2.txt', '-a', 'a', '--ids', 'q{i}', '--seed', '2', '--append');
    writeFileSync(prompt, original);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/prompts\/sql\.md changed since recordings\/a was recorded/);
  });
  it('refuses a prediction whose database disagrees with its golden question', async () => {
    writeFileSync(join(project.dir, 'wrongdb.txt'), 'SELECT 1\tpets_1\n');
    const r = await run('import', 'predictions', 'wrongdb.txt', '-a', 'b', '--ids', 'q{i}');
    expect(r.code).toBe(2);
    // pets_1 is no database of this warehouse: the trailing field is refused as a database name
    expect(r.err).toMatch(/wrongdb\.txt:1: every line ends with TAB and a name \(pets_1, …\) that is no database of the warehouse \(known: concert_singer\)/);
  });
});

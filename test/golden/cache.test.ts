// Validated golden files are cached in <project>/.replaygate/cache/golden/, keyed by the file's
// path and bytes, the known databases and the loader's version (GOLDEN_CACHE_FORMAT): an
// unchanged file is read back as JSON, a changed one is parsed and validated again, and a bad
// one is never cached.
import { VERSION } from '../../src/version.js';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GOLDEN_CACHE_FORMAT, loadGoldenQuestions } from '../../src/golden/load.js';
import { CACHE_SPARE_ENTRIES, cacheDir, cacheEnabled, cacheKey } from '../../src/util/cache.js';
import { DataError } from '../../src/util/errors.js';

const root = mkdtempSync(join(tmpdir(), 'replaygate-golden-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = cacheDir(root);
const file = join(root, 'q.yml');
const entries = (): string[] => (existsSync(join(dir, 'golden')) ? readdirSync(join(dir, 'golden')) : []);

describe('golden cache', () => {
  it('writes one entry per file content, ignored by git, and reads it back', async () => {
    writeFileSync(file, '- id: a\n  question: How many?\n  db: main\n  golden_sql: SELECT count(*) FROM t ORDER BY 1\n');
    const first = await loadGoldenQuestions([file], new Set(['main']), { cacheDir: dir });
    expect(first[0]).toMatchObject({ id: 'a', ordered: true, source: `${file}:1` });
    expect(entries()).toHaveLength(1);
    expect(readFileSync(join(root, '.replaygate', '.gitignore'), 'utf8')).toContain('*');
    // The entry is what the next load returns (proved by editing it: a real entry is never edited).
    const entry = join(dir, 'golden', entries()[0] as string);
    const cached = JSON.parse(readFileSync(entry, 'utf8')) as { question: string }[];
    cached[0]!.question = 'from the cache';
    writeFileSync(entry, JSON.stringify(cached));
    expect((await loadGoldenQuestions([file], new Set(['main']), { cacheDir: dir }))[0]?.question).toBe('from the cache');
    // Without the cache, or with other databases known, the file is read and validated again.
    expect((await loadGoldenQuestions([file], new Set(['main'])))[0]?.question).toBe('How many?');
    expect((await loadGoldenQuestions([file], new Set(['main', 'other']), { cacheDir: dir }))[0]?.question).toBe('How many?');
  });

  it('a changed file is a new entry; a bad file is an error every time and never cached', async () => {
    const before = entries().length;
    writeFileSync(file, '- id: a\n  question: How many now?\n  db: main\n  golden_sql: SELECT 1\n');
    expect((await loadGoldenQuestions([file], new Set(['main']), { cacheDir: dir }))[0]).toMatchObject({ question: 'How many now?', ordered: false });
    expect(entries()).toHaveLength(before + 1);
    writeFileSync(file, '- id: a\n  question: q\n  db: nope\n  golden_sql: SELECT 1\n');
    for (let i = 0; i < 2; i++) {
      await expect(loadGoldenQuestions([file], new Set(['main']), { cacheDir: dir })).rejects.toThrow(DataError);
    }
    expect(entries()).toHaveLength(before + 1);
  });

  it('is bounded: a new entry prunes all but this run\'s entries and the newest few others; a hit prunes nothing', async () => {
    const project = mkdtempSync(join(tmpdir(), 'replaygate-golden-prune-'));
    try {
      const cache = cacheDir(project);
      const files = [join(project, 'a.yml'), join(project, 'b.yml')];
      const folder = join(cache, 'golden');
      const list = (): string[] => (existsSync(folder) ? readdirSync(folder).sort() : []);
      for (let edit = 0; edit < CACHE_SPARE_ENTRIES + 10; edit++) {
        writeFileSync(files[0] as string, `- id: a\n  question: Edit ${edit}?\n  golden_sql: SELECT ${edit}\n`);
        writeFileSync(files[1] as string, `- id: b\n  question: Edit ${edit}?\n  golden_sql: SELECT ${edit}\n`);
        await loadGoldenQuestions(files, undefined, { cacheDir: cache });
        expect(list().length).toBeLessThanOrEqual(2 + CACHE_SPARE_ENTRIES);
      }
      // This run's two entries are kept (the next load is read from them), and the folder is at its bound.
      const bounded = list();
      expect(bounded).toHaveLength(2 + CACHE_SPARE_ENTRIES);
      for (const name of bounded) writeFileSync(join(folder, name), JSON.stringify([{ ...JSON.parse(readFileSync(join(folder, name), 'utf8'))[0], question: 'from the cache' }]));
      expect((await loadGoldenQuestions(files, undefined, { cacheDir: cache })).map((q) => q.question)).toEqual(['from the cache', 'from the cache']);
      expect(list()).toEqual(bounded); // a hit writes and deletes nothing
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('a cache folder that cannot be written is no cache, not an error', async () => {
    const ro = mkdtempSync(join(tmpdir(), 'replaygate-golden-ro-'));
    try {
      const f = join(ro, 'q.yml');
      writeFileSync(f, '- id: a\n  question: q\n  golden_sql: SELECT 1\n');
      mkdirSync(join(ro, '.replaygate'));
      chmodSync(join(ro, '.replaygate'), 0o500);
      expect(await loadGoldenQuestions([f], undefined, { cacheDir: cacheDir(ro) })).toHaveLength(1);
    } finally {
      chmodSync(join(ro, '.replaygate'), 0o700);
      rmSync(ro, { recursive: true, force: true });
    }
  });

  it('is keyed by the version, the path, the known databases and the bytes only: a rebuild of the same code keeps its entries', async () => {
    const project = mkdtempSync(join(tmpdir(), 'replaygate-golden-key-'));
    try {
      const f = join(project, 'q.yml');
      const text = '- id: a\n  question: q\n  db: main\n  golden_sql: SELECT 1\n';
      writeFileSync(f, text);
      await loadGoldenQuestions([f], new Set(['main']), { cacheDir: cacheDir(project) });
      const key = cacheKey(`golden-${GOLDEN_CACHE_FORMAT}`, VERSION, f, JSON.stringify(['main']), Buffer.from(text));
      expect(readdirSync(join(cacheDir(project), 'golden'))).toEqual([`${key}.json`]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('GOLDEN_CACHE_FORMAT is bumped when the code that loads a golden file changes', () => {
    // Cached entries are keyed by GOLDEN_CACHE_FORMAT, not by the code: an edit of any of these
    // files (or another yaml version) may change what a file loads as, so it must come with a
    // bumped GOLDEN_CACHE_FORMAT (src/golden/load.ts) and the new hash here.
    const sources = ['src/golden/load.ts', 'src/util/yaml.ts', 'src/util/known-keys.ts', 'src/matching/is-ordered-sql.ts', 'src/matching/sql-scan.ts'];
    const hash = createHash('sha256');
    for (const file of sources) {
      const bytes = readFileSync(join(import.meta.dirname, '..', '..', file));
      hash.update(`${file}:${bytes.length}:`).update(bytes);
    }
    const yaml = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', 'yaml', 'package.json'), 'utf8')) as { version: string };
    hash.update(`yaml@${yaml.version}`);
    expect({ format: GOLDEN_CACHE_FORMAT, sources: hash.digest('hex') }).toEqual({ format: 3, sources: 'ae3f9fe0c7bbff69c7cce013a2f302215bea05eee83d28e13d559772e39d72c5' });
  });

  it('REPLAYGATE_CACHE=0 turns it off', () => {
    expect(cacheEnabled({})).toBe(true);
    expect(cacheEnabled({ REPLAYGATE_CACHE: '0' })).toBe(false);
    expect(cacheEnabled({ REPLAYGATE_CACHE: 'off' })).toBe(false);
  });
});
